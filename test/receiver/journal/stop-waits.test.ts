/**
 * Stopping is not failing: an answer still running at the drain deadline is left waiting in the
 * journal (no log FAILED, no apology), the stop says so, and the next start answers it, the logs
 * it opened completed. The drain time is shortened; the model holds the completion until told.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {LocalPlatform} from '../../../source/local-platform/index.js';
import type {PlatformClient} from '../../../source/platform/client.js';
import type {EventBackend} from '../../../source/receiver/store/backend.js';
import type {ReceiverEvent} from '../../../source/receiver/events.js';
import {openJournal} from '../../../source/receiver/journal/index.js';
import {createReceiver, type WebhookReceiver} from '../../../source/receiver/server.js';
import {buildTestEvent, signDelivery} from '../../../source/receiver/intake/test-event.js';
import {plainLine} from '../../../source/ui/serve/format.js';
import {post, startModel} from '../helpers.js';
import {clientFor, startPlatform} from '../../support/platform.js';
import {waitFor} from '../../support/wait.js';
import {tempDataDir} from './helpers.js';

let platform: LocalPlatform;
let model: Awaited<ReturnType<typeof startModel>>;
let user: PlatformClient;
const secret = 'whsec_stop';
const answerText = 'The lamp is lit at dusk.';

beforeAll(async () => {
	model = await startModel({content: answerText});
	platform = (await startPlatform({llmUrl: model.url})).platform;
	user = clientFor(platform);
});

afterAll(async () => {
	await user.close();
	await platform.close();
	await model.close();
});

type Running = {receiver: WebhookReceiver; journal: EventBackend; client: PlatformClient; url: string; events: ReceiverEvent[]};

async function start(dataDir: string): Promise<Running> {
	const journal = await openJournal({directory: dataDir, verify: false});
	const client = clientFor(platform, {retries: 0});
	// The answer deadline is far away: the stop must not bring the apology forward.
	const receiver = createReceiver({client, secrets: [secret], backend: journal, retry: {baseMs: 50}, cleanupTimeoutMs: 5000});
	const events: ReceiverEvent[] = [];
	receiver.on('event', event => {
		events.push(event);
	});
	const {url} = await receiver.listen({port: 0});
	return {receiver, journal, client, url, events};
}

async function stop(running: Running, drainMs: number) {
	const result = await running.receiver.close(drainMs);
	await running.journal.close();
	await running.client.close();
	return result;
}

describe('a stop past the drain time', () => {
	it('leaves the running answer waiting for the next start: no log FAILED, no apology; the next start answers it once', async () => {
		const dataDir = tempDataDir();
		const chat = await user.createChat({title: 'Stop', assistantId: platform.assistantId});
		await user.createSpaceMessage({assistantId: platform.assistantId, chatId: chat.id, text: 'Is the lamp lit?'});
		const messageId = (await user.getChatMessages(chat.id)).messages.find(message => message.role === 'ASSISTANT')?.id ?? '';
		await waitFor(() => platform.message(messageId)?.stoppedStreamingAt, {what: 'the built-in answer'});
		const logsBefore = platform.messageLogs(messageId).length;
		const writes = () => platform.requests.filter(request => request.method === 'PATCH' && request.path === `/messages/${messageId}`).length;

		// The model holds the completion past the drain time.
		model.setDelay(60_000);
		const callsBefore = model.calls;
		const first = await start(dataDir);
		const event = buildTestEvent('external-module-chosen', {chatId: chat.id, assistantMessageId: messageId, text: 'Is the lamp lit?', userId: platform.userId, companyId: platform.companyId, assistantId: platform.assistantId});
		const delivery = signDelivery(event, secret);
		expect((await post(`${first.url}/webhook`, delivery.body, delivery.headers)).status).toBe(200);
		await waitFor(() => model.calls, {until: calls => calls > callsBefore, what: 'the completion call'});
		const result = await stop(first, 50);
		expect(result).toMatchObject({cutOff: 1, leftWaiting: 1});
		const stopped = first.events.at(-1);
		expect(stopped).toMatchObject({type: 'stopped', cutOff: 1, leftWaiting: 1});
		expect(plainLine(stopped as ReceiverEvent)).toContain('1 job cut off at the drain deadline, 1 left waiting for the next start or another replica');
		expect(first.events.some(line => line.type === 'stage' && line.stage === 'failed')).toBe(false);
		// Nothing failed, nothing written: log 2 stays open for the next start.
		expect(platform.messageLogs(messageId).slice(logsBefore).map(log => log.status)).toEqual(['COMPLETED', 'RUNNING']);
		expect(writes()).toBe(0);

		const reopened = await openJournal({directory: dataDir, mode: 'read', verify: false});
		const stored = await reopened.get(event.id);
		await reopened.close();
		expect(stored).toMatchObject({status: 'waiting'});
		expect(stored?.steps.at(-1)).toMatchObject({name: 'waiting', data: {phase: 'answer'}});

		model.setDelay(0);
		const second = await start(dataDir);
		try {
			await waitFor(() => second.events.find(line => line.type === 'stage' && line.stage === 'answered' && line.eventId === event.id), {what: 'the answer after the restart'});
			expect(platform.message(messageId)?.text).toBe(answerText);
			expect(platform.messageLogs(messageId).slice(logsBefore).map(log => log.status)).toEqual(['COMPLETED', 'COMPLETED']);
			expect(writes()).toBe(1);
		} finally {
			await stop(second, 1000);
		}
	});
});
