import {Queue} from 'bullmq';
import {Redis} from 'ioredis';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {BackendUnavailableError, type EventBackend, type StoredEvent} from '../../../source/receiver/store/backend.js';
import {defaultPrefix, openRedisBackend} from '../../../source/receiver/redis/index.js';
import {jobIdOf} from '../../../source/receiver/redis/mapping.js';
import {batchLimit} from '../../../source/receiver/redis/record.js';
import {redisSkipReason, startRedis, type TestRedis} from '../../support/redis.js';
import {defined} from '../../support/defined.js';
import {waitFor} from '../../support/wait.js';
import {newEvent, recordingHandler, type Seen} from './events.js';

const fast = {lockDurationMs: 1000, stalledIntervalMs: 500};

/** What of a stored event depends neither on when it was stored nor on its id. */
function timeless(event: StoredEvent | undefined): Record<string, unknown> {
	const varying = new Set(['receivedAt', 'updatedAt', 'id', 'chatId', 'body', 'headers']);
	return Object.fromEntries(Object.entries(event ?? {}).filter(([key]) => !varying.has(key)));
}

describe.skipIf(redisSkipReason !== undefined)('redis: events recorded only', () => {
	let redis: TestRedis;
	/** The tests' own connection, to look at what the replicas wrote. */
	let client: Redis;
	beforeAll(async () => {
		redis = await startRedis();
		client = new Redis(redis.url);
	});
	afterAll(async () => {
		client.disconnect();
		await redis.stop();
	});

	/** The key that holds `id` in `queue` once its job is gone (BullMQ's de-duplication key). */
	const holdKey = (queue: string, id: string) => `${defaultPrefix}:${queue}:de:${jobIdOf(id)}`;

	/** Runs `body` with `count` replicas of one fresh queue (and BullMQ's own queue object), all closed after it. */
	async function withReplicas(count: number, extra: {maxEntries?: number}, body: (replicas: EventBackend[], queue: string) => Promise<void>): Promise<void> {
		const queue = redis.queueName();
		const replicas = await Promise.all(Array.from({length: count}, async () => openRedisBackend({url: redis.url, queueName: queue, ...fast, ...extra})));
		try {
			await body(replicas, queue);
		} finally {
			await Promise.all(replicas.map(async replica => replica.close()));
		}
	}

	it('stores a logged event finished in one script, once across replicas, read back as a job the worker finished', async () => withReplicas(2, {}, async (replicas, queue) => {
		const [a, b] = [defined(replicas[0], 'replica a'), defined(replicas[1], 'replica b')];
		const logged = {status: 'logged' as const, event: 'platform.chat.user-message.created'};
		expect(await a.accept(newEvent('evt_logged', logged))).toBe('stored');
		expect(await b.accept(newEvent('evt_logged', logged))).toBe('duplicate');
		expect(await a.holds?.('evt_logged')).toBe(true);

		// The same event added through BullMQ, as releases before stored it, and finished by a worker.
		const connection = new Redis(redis.url);
		const bull = new Queue(queue, {connection, prefix: defaultPrefix});
		await bull.add(logged.event, newEvent('evt_through_worker', logged), {jobId: jobIdOf('evt_through_worker'), attempts: 1});
		const seen: Seen[] = [];
		await a.start(recordingHandler(seen), {concurrency: 1});
		await waitFor(async () => (await a.stats()).queue?.completed === 2, {what: 'the worker to finish the event'});

		const direct = await b.get('evt_logged');
		expect(direct).toMatchObject({id: 'evt_logged', status: 'logged', attempts: 1});
		expect(timeless(direct)).toEqual(timeless(await b.get('evt_through_worker')));
		expect((await b.list({status: 'logged'})).map(event => event.id).sort()).toEqual(['evt_logged', 'evt_through_worker']);
		expect(seen).toHaveLength(0);
		expect(await b.stats()).toMatchObject({count: 2, queue: {waiting: 0, active: 0, completed: 2, failed: 0}});

		// A replay runs it through the worker, which finishes it logged again.
		expect(await b.replay('evt_logged', recordingHandler(seen))).toEqual({outcome: 'queued'});
		await waitFor(async () => (await a.get('evt_logged'))?.attempts === 2, {what: 'the replayed event to finish'});
		expect(await a.get('evt_logged')).toMatchObject({status: 'logged'});
		expect(seen).toHaveLength(0);
		await a.stop(1000);
		await bull.close();
		connection.disconnect();
	}));

	it('keeps the finished events within the count bound, each id still held for its 24 h', async () => withReplicas(1, {maxEntries: 2}, async (replicas, queue) => {
		const replica = defined(replicas[0], 'the replica');
		for (const id of ['evt_1', 'evt_2', 'evt_3', 'evt_4']) {
			expect(await replica.accept(newEvent(id, {status: 'ignored'}))).toBe('stored');
		}

		expect((await replica.list({})).map(event => event.id).sort()).toEqual(['evt_3', 'evt_4']);
		expect(await replica.get('evt_1')).toBeUndefined();
		expect(await replica.holds?.('evt_1')).toBe(true);
		expect(await replica.accept(newEvent('evt_1', {status: 'ignored'}))).toBe('duplicate');
		// A kept job holds its own id; one the count bound removed left a hold for the rest of the 24 h.
		expect(await client.exists(holdKey(queue, 'evt_3'), holdKey(queue, 'evt_4'))).toBe(0);
		for (const id of ['evt_1', 'evt_2']) {
			const left = await client.pttl(holdKey(queue, id));
			expect(left).toBeGreaterThan(86_400_000 - 60_000);
			expect(left).toBeLessThanOrEqual(86_400_000);
			expect(await client.get(holdKey(queue, id))).toBe(jobIdOf(id));
		}
	}));

	it('leaves the id of a recorded event held when the worker\'s completion trims its job early', async () => withReplicas(1, {maxEntries: 2}, async (replicas, queue) => {
		const replica = defined(replicas[0], 'the replica');
		const hold = holdKey(queue, 'evt_b');
		for (const id of ['evt_a', 'evt_b']) {
			expect(await replica.accept(newEvent(id, {status: 'logged'}))).toBe('stored');
		}

		const seen: Seen[] = [];
		// evt_a replayed leaves the completed set; evt_c fills it again; the worker's completion
		// of evt_a then goes past the bound and removes evt_b, the oldest.
		expect(await replica.replay('evt_a', recordingHandler(seen))).toEqual({outcome: 'queued'});
		expect(await replica.accept(newEvent('evt_c', {status: 'logged'}))).toBe('stored');
		expect(await client.exists(hold)).toBe(0);
		await replica.start(recordingHandler(seen), {concurrency: 1});
		await waitFor(async () => (await replica.get('evt_a'))?.attempts === 2, {what: 'the replayed event to finish'});
		expect(await replica.get('evt_b')).toBeUndefined();
		expect(await client.pttl(hold)).toBeGreaterThan(86_400_000 - 60_000);
		expect(await replica.holds?.('evt_b')).toBe(true);
		expect(await replica.accept(newEvent('evt_b', {status: 'logged'}))).toBe('duplicate');
		await replica.stop(1000);
	}));

	/** How many script calls (EVALSHA and EVAL) the server has run. */
	async function scriptCalls(): Promise<number> {
		const stats = await client.info('commandstats');
		return [...stats.matchAll(/^cmdstat_eval(?:sha)?:calls=(\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
	}

	it('records the events read in one turn in one script call, each answered by its own outcome', async () => withReplicas(1, {}, async replicas => {
		const replica = defined(replicas[0], 'the replica');
		expect(await replica.accept(newEvent('evt_warm', {status: 'logged'}))).toBe('stored');
		const before = await scriptCalls();
		const outcomes = await Promise.all(['evt_a', 'evt_b', 'evt_a', 'evt_warm'].map(async id => replica.accept(newEvent(id, {status: 'logged'}))));
		expect(outcomes).toEqual(['stored', 'stored', 'duplicate', 'duplicate']);
		expect(await scriptCalls() - before).toBe(1);

		// More than one call carries: the rest go in further calls of the same turn.
		const many = Array.from({length: batchLimit * 2 + 1}, (_, index) => `evt_many_${String(index)}`);
		const between = await scriptCalls();
		expect(new Set(await Promise.all(many.map(async id => replica.accept(newEvent(id, {status: 'ignored'})))))).toEqual(new Set(['stored']));
		expect(await scriptCalls() - between).toBe(3);
		expect(await replica.get('evt_many_0')).toMatchObject({status: 'ignored'});
		expect(await replica.get(defined(many.at(-1), 'the last id'))).toMatchObject({status: 'ignored'});
	}));

	it('fails the events of a call that cannot be built, and leaves the connection to the next turn', async () => withReplicas(1, {}, async replicas => {
		const replica = defined(replicas[0], 'the replica');
		// An event no JSON can hold (never one serve builds: the failure stays with its call).
		const unwritable = {...newEvent('evt_unwritable', {status: 'logged'}), headers: {size: 1n}} as unknown as Parameters<EventBackend['accept']>[0];
		const error: unknown = await replica.accept(unwritable).catch((failure: unknown) => failure);
		expect(error).toBeInstanceOf(BackendUnavailableError);
		expect((error as Error).message).toContain('evt_unwritable');
		expect(await replica.accept(newEvent('evt_after', {status: 'logged'}))).toBe('stored');
		expect(await replica.get('evt_after')).toMatchObject({status: 'logged'});
	}));

	it('fails every event of a call that Redis does not take, each with its own id', async () => {
		const own = await startRedis({forceLocal: true});
		try {
			const replica = await openRedisBackend({url: own.url, queueName: own.queueName(), ...fast});
			try {
				await own.stop();
				const errors = await Promise.all(['evt_down_1', 'evt_down_2'].map(async id => replica.accept(newEvent(id, {status: 'logged'})).catch((error: unknown) => error)));
				for (const [index, error] of errors.entries()) {
					expect(error).toBeInstanceOf(BackendUnavailableError);
					expect((error as Error).message).toContain(`evt_down_${String(index + 1)}`);
				}
			} finally {
				await replica.close();
			}
		} finally {
			await own.stop();
		}
	});
});
