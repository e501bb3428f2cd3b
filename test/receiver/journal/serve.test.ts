/**
 * `serve` with the journal: a SIGKILL after the 200 loses nothing (the must-show crash test), a
 * second serve on one data directory is refused, and a journal that cannot be written answers 503.
 */
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import type {LocalPlatform} from '../../../source/local-platform/index.js';
import type {PlatformClient} from '../../../source/platform/client.js';
import {openJournal} from '../../../source/receiver/journal/index.js';
import {createReceiver} from '../../../source/receiver/server.js';
import {buildTestEvent, signDelivery} from '../../../source/receiver/intake/test-event.js';
import {runCli} from '../../support/cli.js';
import {post, startModel} from '../helpers.js';
import {clientFor, startPlatform} from '../../support/platform.js';
import {serveChildren, serveEnv, type ServeChild} from '../../support/serve.js';
import {waitFor} from '../../support/wait.js';
import {tempDataDir} from './helpers.js';

let platform: LocalPlatform;
let model: Awaited<ReturnType<typeof startModel>>;
let user: PlatformClient;
const serves = serveChildren();

const answerText = 'The keeper writes the weather down every night.';

async function startServe(dataDir: string): Promise<ServeChild> {
	return serves.start(['--data-dir', dataDir], serveEnv(platform));
}

beforeAll(async () => {
	model = await startModel({content: answerText});
	platform = (await startPlatform({llmUrl: model.url})).platform;
	user = clientFor(platform);
});

afterEach(async () => {
	await serves.stopAll();
});

afterAll(async () => {
	await user.close();
	await platform.close();
	await model.close();
});

describe('durable serve', () => {
	it('MUST-SHOW: SIGKILL after the 200 mid-answer; the restart writes the answer once, no log left RUNNING; a redelivery makes no platform call', async () => {
		const dataDir = tempDataDir();
		// A real assistant message to answer (the built-in assistant answers it first, quickly).
		model.setDelay(0);
		const chat = await user.createChat({title: 'Crash', assistantId: platform.assistantId});
		await user.createSpaceMessage({assistantId: platform.assistantId, chatId: chat.id, text: 'What does the keeper write?'});
		const history = await user.getChatMessages(chat.id);
		const messageId = history.messages.find(message => message.role === 'ASSISTANT')?.id ?? '';
		await waitFor(() => platform.message(messageId)?.stoppedStreamingAt, {what: 'the built-in answer'});
		const logsBefore = platform.messageLogs(messageId).length;
		const requestsBefore = platform.requests.length;

		// The completion now takes long: serve is killed while it waits for it.
		model.setDelay(60_000);
		const first = await startServe(dataDir);
		const event = buildTestEvent('external-module-chosen', {chatId: chat.id, assistantMessageId: messageId, text: 'What does the keeper write?', userId: platform.userId, companyId: platform.companyId, assistantId: platform.assistantId});
		const delivery = signDelivery(event, platform.endpointSecret);
		const acked = await post(`${first.url}/webhook`, delivery.body, delivery.headers);
		expect(acked.status).toBe(200);
		const callsBefore = model.calls;
		await waitFor(() => model.active, {until: active => active > 0, what: 'the completion call'});
		first.child.kill('SIGKILL');
		await first.closed;
		const leftRunning = platform.messageLogs(messageId).slice(logsBefore);
		expect(leftRunning.map(log => log.status)).toContain('RUNNING');

		model.setDelay(0);
		const second = await startServe(dataDir);
		await waitFor(() => second.events().some(line => line.type === 'stage' && line.stage === 'answered' && line.eventId === event.id), {what: 'the answer after the restart'});
		expect(platform.message(messageId)?.text).toBe(answerText);
		expect(platform.message(messageId)?.stoppedStreamingAt).toBeTruthy();
		// The answer ends with the logs closed (give the last log update its moment after the message).
		const logs = await waitFor(() => platform.messageLogs(messageId).slice(logsBefore), {until: found => found.every(log => log.status !== 'RUNNING'), what: 'every log closed'});
		expect(logs).toHaveLength(2);
		expect(logs.every(log => log.status === 'COMPLETED' || log.status === 'FAILED')).toBe(true);
		const writes = platform.requests.slice(requestsBefore).filter(request => request.method === 'PATCH' && request.path === `/messages/${messageId}`);
		expect(writes).toHaveLength(1);
		// The completion cut off by the kill, and the one asked again on resume: no more.
		expect(model.calls).toBe(callsBefore + 2);

		// The platform redelivers the same event: 200, recognised, nothing done.
		const requestsAfter = platform.requests.length;
		const again = signDelivery(event, platform.endpointSecret);
		const redelivered = await post(`${second.url}/webhook`, again.body, again.headers);
		expect(redelivered.status).toBe(200);
		await waitFor(() => second.events().some(line => line.type === 'duplicate' && line.eventId === event.id), {what: 'the duplicate line'});
		expect(platform.requests.length).toBe(requestsAfter);

		const shown = await runCli(['events', 'show', event.id, '--json', '--data-dir', dataDir], {env: serveEnv(platform)});
		expect(shown.code).toBe(0);
		expect(JSON.parse(shown.stdout.split('\n')[0] ?? '')).toMatchObject({id: event.id, status: 'answered', attempts: 2});
		second.child.kill('SIGTERM');
		expect(await second.closed).toBe(0);
	});

	it('refuses a second serve on the same data directory, naming the directory and the process', async () => {
		const dataDir = tempDataDir();
		const first = await startServe(dataDir);
		const second = await runCli(['serve', '--port', '0', '--data-dir', dataDir], {env: serveEnv(platform)});
		expect(second.code).toBe(1);
		expect(second.stderr).toContain(dataDir);
		expect(second.stderr).toContain(String(first.child.pid));
		first.child.kill('SIGTERM');
		expect(await first.closed).toBe(0);
	});

	it('answers 503 when the journal cannot be written, so the platform retries', async () => {
		let failing = true;
		const journal = await openJournal({directory: tempDataDir(), failWrites: () => failing});
		const client = clientFor(platform);
		const receiver = createReceiver({client, secrets: ['whsec_journal'], backend: journal});
		const {url} = await receiver.listen({port: 0});
		try {
			const event = buildTestEvent('user-message', {text: 'Hello'});
			const delivery = signDelivery(event, 'whsec_journal');
			const refused = await post(`${url}/webhook`, delivery.body, delivery.headers);
			expect(refused.status).toBe(503);
			failing = false;
			const retried = await post(`${url}/webhook`, delivery.body, delivery.headers);
			expect(retried.status).toBe(200);
			expect((await journal.get(event.id))?.status).toBe('logged');
		} finally {
			await receiver.close(1000);
			await journal.close();
			await client.close();
		}
	});
});
