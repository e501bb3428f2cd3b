/**
 * A platform that carries writes out at once but answers them late (the local platform's `slow`
 * fault), against the receiver over loopback with shortened deadlines: the read deadline is shorter
 * than the platform's delay, as 15 s is shorter than the 16 s a slow platform took. Creates never
 * multiply (no log left RUNNING), and the final message lands once.
 */
import {afterEach, describe, expect, it} from 'vitest';
import type {LocalPlatform, FaultRule} from '../../source/local-platform/index.js';
import {PlatformClient, type PlatformClientOptions} from '../../source/platform/client.js';
import type {ReceiverEvent} from '../../source/receiver/events.js';
import {createReceiver, type WebhookReceiver} from '../../source/receiver/server.js';
import {apologyText} from '../../source/receiver/answer/answer-text.js';
import {defined} from '../support/defined.js';
import {clientFor, startPlatform} from '../support/platform.js';
import {waitFor} from '../support/wait.js';

type World = {platform: LocalPlatform; receiver: WebhookReceiver; clients: PlatformClient[]};

let world: World | undefined;

afterEach(async () => {
	if (world) {
		await world.receiver.close(0);
		for (const client of world.clients) {
			await client.close();
		}

		await world.platform.close();
		world = undefined;
	}
});

/** A platform under `faults` answering them `slowMs` late, and a receiver whose client has the given deadlines. */
async function start(faults: FaultRule[], slowMs: number, deadlines: Pick<PlatformClientOptions, 'timeoutMs' | 'writeTimeoutMs'>, answer: {answerDeadlineMs?: number; cleanupTimeoutMs?: number} = {}): Promise<World> {
	const {platform} = await startPlatform({slowMs, faults});
	const receiverClient = new PlatformClient({baseUrl: platform.baseUrl, apiKey: platform.apiKey, appId: platform.appId, retries: 2, retryBaseMs: 10, retryCapMs: 20, ...deadlines});
	const receiver = createReceiver({client: receiverClient, secrets: [platform.endpointSecret], concurrency: 4, cleanupTimeoutMs: answer.cleanupTimeoutMs ?? 5000, retry: {baseMs: 20, capMs: 100, ...(answer.answerDeadlineMs === undefined ? {} : {answerDeadlineMs: answer.answerDeadlineMs})}});
	const {url} = await receiver.listen({port: 0});
	platform.setWebhookUrl(`${url}/webhook`);
	world = {platform, receiver, clients: [receiverClient]};
	return world;
}

/** Asks `count` questions in chats of their own; returns the assistant messages' ids once each has its final message. */
async function askAndWait(w: World, count: number): Promise<string[]> {
	const ids = await askAndWaitFor(w, count, () => true);
	for (const id of ids) {
		await waitFor(() => w.platform.message(id), {until: message => typeof message?.completedAt === 'string', what: `the final message of ${id}`});
	}

	return ids;
}

/** Asks `count` questions in chats of their own; returns the assistant messages' ids once `done` holds. */
async function askAndWaitFor(w: World, count: number, done: () => boolean): Promise<string[]> {
	const user = clientFor(w.platform);
	w.clients.push(user);
	const ids: string[] = [];
	for (let index = 0; index < count; index++) {
		const chat = await user.createChat({title: `Slow ${index}`, assistantId: w.platform.assistantId});
		await user.createSpaceMessage({assistantId: w.platform.assistantId, chatId: chat.id, text: 'Is the lamp lit?'});
		const history = await user.getChatMessages(chat.id);
		ids.push(defined(history.messages.findLast(message => message.role === 'ASSISTANT')?.id, 'the assistant message'));
	}

	await waitFor(done, {what: 'the answers to end'});
	return ids;
}

/** Waits until every request the platform received was answered (the slow ones too); then counts the writes of each message. */
async function writesPerMessage(w: World, ids: string[]): Promise<number[]> {
	await waitFor(() => w.receiver.counters().answered, {until: answered => answered === ids.length, what: 'every event answered'});
	await waitFor(() => w.platform.requests.filter(request => request.status === 0).length, {until: open => open === 0, what: 'every request answered'});
	return ids.map(id => w.platform.requests.filter(request => request.method === 'PATCH' && request.path === `/messages/${id}`).length);
}

describe('a platform that writes at once and answers late', () => {
	it('creates answered after the read deadline are waited for (the write deadline): one log per step, none left RUNNING, one write each', async () => {
		const w = await start([{operation: 'createMessageLog', kind: 'slow'}, {operation: 'modifyMessage', kind: 'slow'}], 400, {timeoutMs: 200, writeTimeoutMs: 10_000});
		const ids = await askAndWait(w, 3);
		expect(await writesPerMessage(w, ids)).toEqual([1, 1, 1]);
		for (const id of ids) {
			expect(w.platform.messageLogs(id).map(log => log.status)).toEqual(['COMPLETED', 'COMPLETED']);
			expect(w.platform.message(id)?.text).not.toBe(apologyText);
		}
	});

	it('a final write answered after the write deadline is not sent again: the next attempt reads it back and writes nothing', async () => {
		const w = await start([{operation: 'modifyMessage', kind: 'slow'}], 600, {timeoutMs: 150, writeTimeoutMs: 150});
		const ids = await askAndWait(w, 3);
		expect(await writesPerMessage(w, ids)).toEqual([1, 1, 1]);
		for (const id of ids) {
			expect(w.platform.messageLogs(id).filter(log => log.status === 'RUNNING')).toEqual([]);
		}

		// Each answer waited once (its write timed out) and was found written by the read-back.
		const reads = w.platform.requests.filter(request => request.method === 'GET' && ids.some(id => request.path === `/messages/${id}`));
		expect(reads.length).toBeGreaterThanOrEqual(3);
	});

	it('an apology answered after the clean-up deadline waits and is read back: written once, counted as written', async () => {
		const w = await start([{operation: 'search', kind: '500'}, {operation: 'modifyMessage', kind: 'slow'}], 600, {timeoutMs: 5000, writeTimeoutMs: 5000}, {answerDeadlineMs: 100, cleanupTimeoutMs: 150});
		const events: ReceiverEvent[] = [];
		w.receiver.on('event', event => events.push(event));
		const ids = await askAndWaitFor(w, 1, () => events.some(event => event.type === 'stage' && event.stage === 'failed'));
		await waitFor(() => w.platform.requests.filter(request => request.status === 0).length, {until: open => open === 0, what: 'every request answered'});
		expect(w.platform.requests.filter(request => request.method === 'PATCH' && request.path === `/messages/${ids[0]}`)).toHaveLength(1);
		expect(w.platform.message(ids[0] ?? '')?.text).toBe(apologyText);
		expect(events.find(event => event.type === 'stage' && event.stage === 'failed')).toMatchObject({cleanup: {apologyWritten: true}});
	});

	it('a create whose outcome is unknown is not made again: at most one orphan per event, named by its log-unknown step', async () => {
		// Every create answered after the write deadline: each event's first create is of unknown outcome.
		const w = await start([{operation: 'createMessageLog', kind: 'slow'}], 600, {timeoutMs: 150, writeTimeoutMs: 150});
		const ids = await askAndWait(w, 2);
		await writesPerMessage(w, ids);
		for (const id of ids) {
			expect(w.platform.messageLogs(id)).toHaveLength(1);
			expect(w.platform.message(id)?.text).not.toBe(apologyText);
		}

		// Named in its steps (what `events show` prints): one request, its outcome unknown, no second request.
		const stored = [];
		for (const eventId of new Set(w.platform.deliveries.map(delivery => delivery.eventId))) {
			const event = await w.receiver.event(eventId);
			if (event?.event === 'platform.chat.external-module.chosen') {
				stored.push(event);
			}
		}

		expect(stored).toHaveLength(2);
		for (const event of stored) {
			const names = event.steps.map(step => step.name);
			expect(names.filter(name => name === 'log-requested')).toHaveLength(1);
			expect(event.steps.filter(step => step.name === 'log-unknown').map(step => step.data)).toEqual([{order: 1}]);
			expect(names).toContain('message-written');
		}
	});
});
