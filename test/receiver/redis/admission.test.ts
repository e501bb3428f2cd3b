/**
 * The admission script (source/receiver/redis/admission.ts) stores a job to answer as BullMQ's add
 * stores it, in one round trip with the exactly-once check and the backlog bound; the accepts of
 * one turn leave in one write (write-together.ts); and the worker's own completion (finished.ts)
 * leaves the job as BullMQ's completion does.
 */
import type {Socket} from 'node:net';
import {Queue} from 'bullmq';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {admitter} from '../../../source/receiver/redis/admission.js';
import {connect, disconnect, type RedisClient} from '../../../source/receiver/redis/connection.js';
import {defaultPrefix, openRedisBackend} from '../../../source/receiver/redis/index.js';
import {jobIdOf} from '../../../source/receiver/redis/mapping.js';
import {writeTogether} from '../../../source/receiver/redis/write-together.js';
import {redisSkipReason, startRedis, type TestRedis} from '../../support/redis.js';
import {waitFor} from '../../support/wait.js';
import {newEvent, recordingHandler, type Seen} from './events.js';

const holdIdMs = 86_400_000;
const options = (jobId: string) => ({de: {id: jobId, ttl: holdIdMs}, jobId, removeOnComplete: {age: 60, count: 10}, removeOnFail: {age: 60, count: 10}, attempts: 1});

describe.skipIf(redisSkipReason !== undefined)('redis: admission in one script', () => {
	let redis: TestRedis;
	let connection: RedisClient;
	beforeAll(async () => {
		redis = await startRedis();
		connection = await connect('producer', {url: redis.url});
	});
	afterAll(async () => {
		await disconnect(connection);
		await redis.stop();
	});

	/** Runs `body` with a fresh queue of its own, closed after it. */
	async function withQueue(body: (queue: Queue, name: string) => Promise<void>): Promise<void> {
		const name = redis.queueName();
		const queue = new Queue(name, {connection, prefix: defaultPrefix});
		try {
			await body(queue, name);
		} finally {
			await queue.close();
		}
	}

	it('stores the job BullMQ\'s add stores: the same fields, options and id hold, waiting for a worker', async () => withQueue(async queue => {
		const admission = admitter(connection, queue, holdIdMs);
		const event = newEvent('evt_admitted');
		expect(await admission.admit('evt_admitted', event, options('evt_admitted'), 10)).toBe('stored');
		await queue.add(event.event, newEvent('evt_added'), {...options('evt_added'), deduplication: {id: 'evt_added', ttl: holdIdMs}});

		const [ours, bulls] = await Promise.all(['evt_admitted', 'evt_added'].map(async id => connection.hgetall(queue.toKey(id))));
		expect(Object.keys(ours ?? {}).sort()).toEqual(Object.keys(bulls ?? {}).sort());
		// The same but for the id (its data, options and hold) and the moment.
		const rest = (hash: Record<string, string> | undefined, id: string) => ({...hash, data: undefined, opts: undefined, timestamp: undefined, deid: hash?.deid === id});
		expect(rest(ours, 'evt_admitted')).toEqual(rest(bulls, 'evt_added'));
		expect(JSON.parse(ours?.opts ?? '')).toEqual({...JSON.parse(bulls?.opts ?? '') as Record<string, unknown>, jobId: 'evt_admitted', de: {id: 'evt_admitted', ttl: holdIdMs}});
		expect(JSON.parse(ours?.data ?? '')).toEqual(event);
		expect(await connection.lrange(queue.toKey('wait'), 0, -1)).toEqual(['evt_added', 'evt_admitted']);
		expect(await connection.pttl(queue.toKey('de:evt_admitted'))).toBeGreaterThan(holdIdMs - 60_000);
		expect(await admission.holds('evt_admitted')).toBe(true);
	}));

	it('refuses a held id and, at the bound, a new one; counts waiting, running and delayed events', async () => withQueue(async queue => {
		const admission = admitter(connection, queue, holdIdMs);
		const admit = async (id: string, limit?: number) => admission.admit(id, newEvent(id), options(id), limit);
		expect(await admit('evt_1', 3)).toBe('stored');
		expect(await admit('evt_1', 3)).toBe('duplicate');
		expect(await admit('evt_1')).toBe('duplicate');
		await connection.lpush(queue.toKey('active'), 'evt_running');
		await connection.zadd(queue.toKey('delayed'), Date.now() + 60_000, 'evt_waiting');
		expect(await admit('evt_2', 3)).toBe('full');
		expect(await admission.holds('evt_2')).toBe(false);
		expect(await admit('evt_2', 4)).toBe('stored');
		// Without a bound only the exactly-once check.
		expect(await admit('evt_3')).toBe('stored');
	}));

	it('a job admitted so is answered by the worker, which leaves it finished as BullMQ does, its later steps written with the outcome', async () => {
		const queueName = redis.queueName();
		const backend = await openRedisBackend({url: redis.url, queueName, lockDurationMs: 1000, stalledIntervalMs: 500});
		const bull = new Queue(queueName, {connection, prefix: defaultPrefix});
		try {
			const seen: Seen[] = [];
			await backend.start(async job => {
				const result = await recordingHandler(seen)(job);
				// Kept for the next write: none comes, so it is stored with the outcome.
				await job.recordStep({name: 'log-completed', at: new Date().toISOString()}, {later: true});
				return result;
			}, {concurrency: 2});
			expect(await backend.accept(newEvent('evt_answered'))).toBe('stored');
			await waitFor(async () => backend.get('evt_answered'), {until: event => event?.status === 'answered', what: 'the event to be answered'});
			const stored = await backend.get('evt_answered');
			expect(stored?.steps.map(step => step.name)).toEqual(['search-done', 'message-written', 'log-completed']);
			expect(stored).toMatchObject({attempts: 1, status: 'answered'});
			expect(stored?.finishedAt).toBeDefined();
			const job = await bull.getJob(jobIdOf('evt_answered'));
			expect(await job?.getState()).toBe('completed');
			expect(job?.returnvalue).toEqual({status: 'answered'});
			expect(job?.attemptsMade).toBe(1);
			expect(await connection.exists(bull.toKey('evt_answered:lock'))).toBe(0);
			expect(await connection.llen(bull.toKey('active'))).toBe(0);
			expect(seen).toHaveLength(1);
		} finally {
			await backend.stop(1000);
			await backend.close();
			await bull.close();
		}
	});

	it('sends the accepts of one turn in one socket write, after the turn; every reply arrives in order', async () => {
		const {stream} = connection as unknown as {stream: Socket};
		const writes: number[] = [];
		const socket = stream as unknown as {_writev: (chunks: unknown[], callback: () => void) => void};
		const writev = socket._writev.bind(stream);
		socket._writev = (chunks, callback) => {
			writes.push(chunks.length);
			writev(chunks, callback);
		};

		try {
			const replies: Array<Promise<unknown>> = [];
			for (let index = 0; index < 10; index++) {
				writeTogether(connection);
				replies.push(connection.set(`together:${index}`, String(index)), connection.get(`together:${index}`));
			}

			// Corked once, however many accepts the turn had.
			expect(stream.writableCorked).toBe(1);
			const answered = await Promise.all(replies);
			expect(stream.writableCorked).toBe(0);
			expect(answered).toEqual(Array.from({length: 10}, (_, index) => ['OK', String(index)]).flat());
			// The 20 commands left in one write of all their chunks.
			expect(writes).toEqual([20]);
		} finally {
			socket._writev = writev;
		}
	});
});
