/**
 * Durable retries with the journal: an answer the platform refuses with 503 waits on a schedule
 * stored with the event; the schedule survives the receiver's restart (the next process waits
 * for the stored time, then answers without repeating the steps done), and `events list --status
 * waiting` shows it meanwhile. The product's retry timer is shortened, nothing sleeps.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {LocalPlatform} from '../../../source/local-platform/index.js';
import type {PlatformClient} from '../../../source/platform/client.js';
import type {EventBackend} from '../../../source/receiver/store/backend.js';
import type {ReceiverEvent} from '../../../source/receiver/events.js';
import {openJournal} from '../../../source/receiver/journal/index.js';
import {createReceiver, type WebhookReceiver} from '../../../source/receiver/server.js';
import {buildTestEvent, signDelivery} from '../../../source/receiver/intake/test-event.js';
import {post, startModel} from '../helpers.js';
import {clientFor, startPlatform} from '../../support/platform.js';
import {waitFor} from '../../support/wait.js';
import {tempDataDir} from './helpers.js';

let platform: LocalPlatform;
let model: Awaited<ReturnType<typeof startModel>>;
let user: PlatformClient;
const secret = 'whsec_waiting';
const answerText = 'The keeper writes the weather down every night.';

beforeAll(async () => {
	model = await startModel({content: answerText});
	platform = (await startPlatform({llmUrl: model.url, faultRetryAfterSeconds: 0})).platform;
	user = clientFor(platform);
});

afterAll(async () => {
	await user.close();
	await platform.close();
	await model.close();
});

type Running = {receiver: WebhookReceiver; journal: EventBackend; client: PlatformClient; url: string; events: ReceiverEvent[]; close(): Promise<void>};

async function start(dataDir: string, retry: {baseMs: number}): Promise<Running> {
	const journal = await openJournal({directory: dataDir, verify: false});
	// One attempt per call: the durable schedule, not the client's own retries, is under test.
	const client = clientFor(platform, {retries: 0});
	const receiver = createReceiver({client, secrets: [secret], backend: journal, retry: {...retry, random: () => 1}});
	const events: ReceiverEvent[] = [];
	receiver.on('event', event => {
		events.push(event);
	});
	const {url} = await receiver.listen({port: 0});
	return {receiver, journal, client, url, events, async close() {
		await receiver.close(1000);
		await journal.close();
		await client.close();
	}};
}

async function assistantMessage(): Promise<{chatId: string; messageId: string}> {
	const chat = await user.createChat({title: 'Waiting', assistantId: platform.assistantId});
	await user.createSpaceMessage({assistantId: platform.assistantId, chatId: chat.id, text: 'What does the keeper write?'});
	const messageId = (await user.getChatMessages(chat.id)).messages.find(message => message.role === 'ASSISTANT')?.id ?? '';
	await waitFor(() => platform.message(messageId)?.stoppedStreamingAt, {what: 'the built-in answer'});
	return {chatId: chat.id, messageId};
}

describe('durable retries with the journal', () => {
	it('MUST-SHOW: the retry schedule survives a restart: the next process waits for the stored time, then answers once, no log created twice', async () => {
		const dataDir = tempDataDir();
		const {chatId, messageId} = await assistantMessage();
		const logsBefore = platform.messageLogs(messageId).length;
		platform.setFaults({rules: [{operation: 'search', kind: '503'}]});
		// The first wait is 3 s (random 1: the top of the jitter), long enough to stop in between.
		const first = await start(dataDir, {baseMs: 3000});
		const event = buildTestEvent('external-module-chosen', {chatId, assistantMessageId: messageId, text: 'What does the keeper write?', userId: platform.userId, companyId: platform.companyId, assistantId: platform.assistantId});
		const delivery = signDelivery(event, secret);
		expect((await post(`${first.url}/webhook`, delivery.body, delivery.headers)).status).toBe(200);
		const waiting = await waitFor(() => first.events.find(line => line.type === 'stage' && line.stage === 'waiting'), {what: 'the waiting stage'});
		expect(waiting).toMatchObject({eventId: event.id, waitingFor: 'answer', tries: 1});
		await first.close();

		const reopened = await openJournal({directory: dataDir, mode: 'read', verify: false});
		const stored = await reopened.get(event.id);
		const listed = await reopened.list({status: 'waiting'});
		await reopened.close();
		expect(stored).toMatchObject({status: 'waiting', nextAttemptAt: waiting.type === 'stage' ? waiting.nextAttemptAt : ''});
		expect(stored?.steps.map(step => step.name)).toEqual(['log-requested', 'log-created', 'waiting']);
		expect(listed.map(found => found.id)).toEqual([event.id]);
		const dueMs = Date.parse(stored?.nextAttemptAt ?? '');

		// The platform is back; a new process takes the event at its stored time, with no command run.
		platform.setFaults({rules: []});
		const requestsBefore = platform.requests.length;
		const second = await start(dataDir, {baseMs: 3000});
		try {
			await waitFor(() => second.events.find(line => line.type === 'stage' && line.stage === 'answered' && line.eventId === event.id), {what: 'the answer after the restart', timeoutMs: 30_000});
			const later = platform.requests.slice(requestsBefore).filter(request => request.path.startsWith('/search') || request.path.startsWith('/message'));
			expect(later.length).toBeGreaterThan(0);
			expect(Math.min(...later.map(request => Date.parse(request.at)))).toBeGreaterThanOrEqual(dueMs);
			expect(platform.message(messageId)?.text).toBe(answerText);
			const logs = platform.messageLogs(messageId).slice(logsBefore);
			// Log 1 was created by the first process and completed by the second: two logs in all.
			expect(logs.map(log => log.status)).toEqual(['COMPLETED', 'COMPLETED']);
			const writes = platform.requests.filter(request => request.method === 'PATCH' && request.path === `/messages/${messageId}` && request.status === 200);
			expect(writes).toHaveLength(1);
			// The stage is told before the attempt's end is committed.
			await waitFor(async () => (await second.journal.get(event.id))?.status, {until: status => status === 'answered', what: 'the answered record'});
		} finally {
			await second.close();
		}
	});

	it('when the platform answers again, wake makes every waiting event due at once (serve calls it on the platform\'s recovery)', async () => {
		const {chatId, messageId} = await assistantMessage();
		platform.setFaults({rules: [{operation: 'search', kind: '503'}]});
		// A first wait of 10 minutes: only the wake brings the event back within the test.
		const running = await start(tempDataDir(), {baseMs: 600_000});
		try {
			const event = buildTestEvent('external-module-chosen', {chatId, assistantMessageId: messageId, text: 'What does the keeper write?', userId: platform.userId, companyId: platform.companyId, assistantId: platform.assistantId});
			const delivery = signDelivery(event, secret);
			expect((await post(`${running.url}/webhook`, delivery.body, delivery.headers)).status).toBe(200);
			await waitFor(async () => running.journal.waiting?.(), {until: summary => summary?.count === 1, what: 'the event set aside'});
			platform.setFaults({rules: []});
			await running.journal.wake?.();
			await waitFor(() => running.events.find(line => line.type === 'stage' && line.stage === 'answered' && line.eventId === event.id), {what: 'the answer after the wake'});
			expect(platform.message(messageId)?.text).toBe(answerText);
			expect(await running.journal.waiting?.()).toEqual({count: 0});
		} finally {
			platform.setFaults({rules: []});
			await running.close();
		}
	});
});
