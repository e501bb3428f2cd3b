/**
 * Redis loses its data while jobs are in flight (FLUSHALL; a restart of a redis-server without
 * persistence): the job running here finishes from this replica's copy (its answer written, no
 * apology) and is logged as lost with the Redis data; the jobs that were waiting are logged
 * `lost` with their event ids, with no platform call; `processing` comes back to 0; and the queue
 * figures are what Redis now holds.
 */
import {createServer, type ServerResponse} from 'node:http';
import type {AddressInfo} from 'node:net';
import {Redis} from 'ioredis';
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import type {ReceiverEvent, StageEvent} from '../../../source/receiver/events.js';
import {apologyText} from '../../../source/receiver/answer/answer-text.js';
import {openRedisBackend} from '../../../source/receiver/redis/index.js';
import {createReceiver, type WebhookReceiver} from '../../../source/receiver/server.js';
import {plainLine} from '../../../source/ui/serve/format.js';
import {defined} from '../../support/defined.js';
import {clientFor, startPlatform, type TestPlatform} from '../../support/platform.js';
import {hasRedisServer, redisSkipReason, startRedis, type TestRedis} from '../../support/redis.js';
import {waitFor} from '../../support/wait.js';
import {chosenEvent, sendSigned} from '../helpers.js';

const answer = 'The answer the held model gives.';

/** A chat-completion stand-in that answers at once until `hold()`, then keeps every answer until `release()`. */
async function startHeldModel() {
	let holding = false;
	const held: ServerResponse[] = [];
	const reply = (response: ServerResponse) => {
		response.writeHead(200, {'content-type': 'application/json'});
		response.end(JSON.stringify({choices: [{index: 0, message: {role: 'assistant', content: answer}, finish_reason: 'stop'}]}));
	};

	const server = createServer((request, response) => {
		request.resume();
		request.on('end', () => {
			if (holding) {
				held.push(response);
			} else {
				reply(response);
			}
		});
	});
	await new Promise<void>(resolve => {
		server.listen(0, '127.0.0.1', resolve);
	});
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
		held: () => held.length,
		hold() {
			holding = true;
		},
		release() {
			holding = false;
			for (const response of held.splice(0)) {
				reply(response);
			}
		},
		async close() {
			server.closeAllConnections();
			await new Promise(resolve => server.close(resolve));
		},
	};
}

describe.skipIf(redisSkipReason !== undefined || !hasRedisServer)('a Redis wipe while jobs are in flight', () => {
	let platform: TestPlatform;
	let model: Awaited<ReturnType<typeof startHeldModel>>;
	const cleanups: Array<() => Promise<void>> = [];

	beforeAll(async () => {
		model = await startHeldModel();
		platform = await startPlatform({llmUrl: model.url});
	});

	afterEach(async () => {
		model.release();
		for (const cleanup of cleanups.splice(0).reverse()) {
			await cleanup();
		}
	});

	afterAll(async () => {
		await platform.close();
		await model.close();
	});

	/** Assistant messages to answer (the built-in assistant answers them first, the receiver overwrites them). */
	async function targets(count: number): Promise<Array<{chatId: string; messageId: string}>> {
		const {platform: local} = platform;
		const user = platform.client();
		try {
			const chat = await user.createChat({title: 'Wipe', assistantId: local.assistantId});
			for (let index = 0; index < count; index++) {
				await user.createSpaceMessage({assistantId: local.assistantId, chatId: chat.id, text: `Question ${String(index)}`});
			}

			const history = await user.getChatMessages(chat.id);
			const found = history.messages.filter(message => message.role === 'ASSISTANT').map(message => ({chatId: chat.id, messageId: defined(message.id, 'an assistant message id')}));
			await waitFor(() => found.every(target => local.message(target.messageId)?.stoppedStreamingAt), {what: 'the built-in answers'});
			return found;
		} finally {
			await user.close();
		}
	}

	async function startReplica(redis: TestRedis): Promise<{receiver: WebhookReceiver; url: string; events: ReceiverEvent[]}> {
		const client = clientFor(platform.platform, {userId: undefined, companyId: undefined});
		const backend = await openRedisBackend({url: redis.url, lockDurationMs: 2000, stalledIntervalMs: 1000});
		const receiver = createReceiver({client, secrets: [platform.platform.endpointSecret], backend, concurrency: 1, lostSweepMs: 100});
		const events: ReceiverEvent[] = [];
		receiver.on('event', event => events.push(event));
		const {url} = await receiver.listen({port: 0});
		cleanups.push(async () => {
			await receiver.close(2000);
			await client.close();
		});
		return {receiver, url: `${url}/webhook`, events};
	}

	async function run(wipe: (redis: TestRedis) => Promise<TestRedis>): Promise<void> {
		const {platform: local} = platform;
		let redis = await startRedis({forceLocal: true});
		cleanups.push(async () => redis.stop());
		const [running, waitingOne, waitingTwo, after] = await targets(4).then(found => found.map((target, index) => ({...target, id: `evt_wipe_${String(index)}_${String(Date.now())}`})));
		const replica = await startReplica(redis);
		model.hold();
		const send = async (target: NonNullable<typeof running>) => sendSigned(replica.url, chosenEvent({id: target.id, chatId: target.chatId, assistantMessageId: target.messageId, text: 'What is in the report?', userId: local.userId, companyId: local.companyId}), local.endpointSecret);
		expect((await send(defined(running))).status).toBe(200);
		// The first job is in flight (asking the model); the others wait in Redis (concurrency 1).
		await waitFor(() => model.held() === 1, {what: 'the first job to ask the model'});
		expect((await send(defined(waitingOne))).status).toBe(200);
		expect((await send(defined(waitingTwo))).status).toBe(200);
		expect(replica.receiver.counters().processing).toBe(3);

		redis = await wipe(redis);
		model.release();

		const stages = () => replica.events.filter((event): event is StageEvent => event.type === 'stage');
		await waitFor(() => replica.receiver.counters().processing, {until: count => count === 0, what: 'processing back to 0'});
		const ends = await waitFor(() => {
			const found = stages().filter(event => ['answered', 'failed', 'lost'].includes(event.stage));
			return found.length === 3 ? found : undefined;
		}, {timeoutMs: 20_000, what: 'the three jobs to end'});

		// The job in flight finished from this replica's copy: the answer, not an apology.
		const first = ends.find(event => event.eventId === running?.id);
		expect(first).toMatchObject({stage: 'answered', storeLost: true});
		expect(plainLine(defined(first))).toContain('its record was lost with the Redis data while it ran');
		expect(local.message(defined(running).messageId)?.text).toBe(answer);
		expect(local.messageLogs(defined(running).messageId).filter(log => log.status === 'RUNNING')).toEqual([]);

		// The waiting ones are logged lost, with their ids; nothing was written for them.
		for (const target of [waitingOne, waitingTwo]) {
			const lost = ends.find(event => event.eventId === target?.id);
			expect(lost?.stage).toBe('lost');
			expect(plainLine(defined(lost))).toMatch(new RegExp(`${defined(target).id} .*lost with the Redis data`));
			expect(local.message(defined(target).messageId)?.text).not.toBe(apologyText);
			expect(local.messageLogs(defined(target).messageId).filter(log => log.status !== 'COMPLETED')).toEqual([]);
		}

		expect(replica.receiver.counters()).toMatchObject({processing: 0, answered: 1, failed: 0});
		// The replica keeps working on what Redis now holds: a new event is answered, and the
		// figures count it alone.
		expect((await send(defined(after))).status).toBe(200);
		await waitFor(async () => (await replica.receiver.event(defined(after).id))?.status, {until: status => status === 'answered', what: 'an event after the wipe'});
		expect(await replica.receiver.backendStats()).toEqual({count: 1, queue: {waiting: 0, active: 0, completed: 1, failed: 0}});
		expect(replica.receiver.counters()).toMatchObject({processing: 0, answered: 2});
	}

	it('FLUSHALL mid-job', async () => {
		await run(async redis => {
			const raw = new Redis(redis.url);
			try {
				await raw.flushall();
			} finally {
				raw.disconnect();
			}

			return redis;
		});
	});

	it('a restart of a redis-server without persistence mid-job', async () => {
		await run(async redis => {
			const port = defined(redis.port, 'the port');
			await redis.stop();
			return startRedis({port});
		});
	});
});
