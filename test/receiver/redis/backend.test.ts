import {spawn} from 'node:child_process';
import {fileURLToPath} from 'node:url';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {BackendUnavailableError, type EventBackend} from '../../../source/receiver/store/backend.js';
import {openRedisBackend, RedisError} from '../../../source/receiver/redis/index.js';
import {redisSkipReason, startRedis, type TestRedis} from '../../support/redis.js';
import {waitFor} from '../../support/wait.js';
import {newEvent, recordingHandler, type Seen, statusOf} from './events.js';

const fast = {lockDurationMs: 1000, stalledIntervalMs: 500};

describe.skipIf(redisSkipReason !== undefined)('redis backend', () => {
	let redis: TestRedis;
	const open: EventBackend[] = [];

	async function backend(queueName: string, extra: Partial<Parameters<typeof openRedisBackend>[0]> = {}): Promise<EventBackend> {
		const opened = await openRedisBackend({url: redis.url, queueName, ...fast, ...extra});
		open.push(opened);
		return opened;
	}

	beforeAll(async () => {
		redis = await startRedis();
	});

	afterAll(async () => {
		await Promise.all(open.map(async item => item.close()));
		await redis.stop();
	});

	it('stores an event once across two replicas; a redelivery to either is a duplicate and runs once', async () => {
		const queue = redis.queueName();
		const [a, b] = [await backend(queue), await backend(queue)];
		expect(await a.accept(newEvent('evt_one'))).toBe('stored');
		expect(await b.accept(newEvent('evt_one'))).toBe('duplicate');
		expect(await a.accept(newEvent('evt_one'))).toBe('duplicate');
		// Ids BullMQ would refuse as job ids are escaped, not rejected.
		expect(await a.accept(newEvent('12345'))).toBe('stored');
		expect(await b.accept(newEvent('12345'))).toBe('duplicate');
		expect(await a.accept(newEvent('a:b'))).toBe('stored');

		const seen: Seen[] = [];
		await a.start(recordingHandler(seen), {concurrency: 2});
		await b.start(recordingHandler(seen), {concurrency: 2});
		await waitFor(async () => (await a.list({status: 'answered'})).length === 3, {what: 'three answered events'});
		expect(seen.map(item => item.id).sort()).toEqual(['12345', 'a:b', 'evt_one']);
		expect(await b.accept(newEvent('evt_one'))).toBe('duplicate');
		const stored = await b.get('evt_one');
		expect(stored).toMatchObject({id: 'evt_one', status: 'answered', attempts: 1, chatId: 'chat-evt_one'});
		expect(stored?.steps.map(step => step.name)).toEqual(['search-done', 'message-written']);
		expect(stored?.finishedAt).toBeDefined();
		expect(stored?.durationMs).toBeGreaterThanOrEqual(0);
		await a.stop(1000);
		await b.stop(1000);
	});

	it('resumes a job from its last step on another replica after its replica is killed', async () => {
		const queue = redis.queueName();
		const replicaPath = fileURLToPath(new URL('fixtures/replica.ts', import.meta.url));
		const child = spawn(process.execPath, ['--import', 'tsx', replicaPath, redis.url, queue, String(fast.lockDurationMs), String(fast.stalledIntervalMs)], {stdio: ['ignore', 'pipe', 'inherit']});
		let output = '';
		child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
			output += chunk;
		});
		const exited = new Promise(resolve => child.once('exit', resolve));
		try {
			await waitFor(() => output.includes('ready'), {what: 'the replica to start'});
			const survivor = await backend(queue);
			expect(await survivor.accept(newEvent('evt_resume'))).toBe('stored');
			await waitFor(() => output.includes('step evt_resume'), {what: 'the first step'});
			expect((await survivor.get('evt_resume'))?.status).toBe('processing');
			child.kill('SIGKILL');
			await exited;

			const seen: Seen[] = [];
			await survivor.start(recordingHandler(seen), {concurrency: 1});
			await waitFor(async () => (await statusOf(survivor, 'evt_resume')) === 'answered', {what: 'the takeover'});
			// The survivor got the dead replica's step, and continued after it.
			expect(seen).toHaveLength(1);
			expect(seen[0]?.steps.map(step => step.name)).toEqual(['log-created']);
			expect(seen[0]?.steps[0]?.data).toEqual({messageLogId: 'log-evt_resume'});
			expect(seen[0]?.attempts).toBe(2);
			const stored = await survivor.get('evt_resume');
			expect(stored?.steps.map(step => step.name)).toEqual(['log-created', 'search-done', 'message-written']);
			await survivor.stop(1000);
		} finally {
			child.kill('SIGKILL');
		}
	});

	it('ends a failed answer failed with its reason, lists it, replays it, and finds close ids', async () => {
		const queue = redis.queueName();
		const replica = await backend(queue);
		let failFirst = true;
		const seen: Seen[] = [];
		await replica.start(recordingHandler(seen, () => {
			const result = failFirst ? {status: 'failed' as const, error: 'completion timed out'} : {status: 'answered' as const};
			failFirst = false;
			return result;
		}), {concurrency: 1});
		await replica.accept(newEvent('evt_fails'));
		await replica.accept(newEvent('evt_other', {event: 'platform.chat.user-message.created', status: 'ignored', note: 'not a chosen-module event'}));
		await waitFor(async () => (await statusOf(replica, 'evt_fails')) === 'failed', {what: 'the failure'});
		await waitFor(async () => (await statusOf(replica, 'evt_other')) === 'ignored', {what: 'the ignored event'});

		const failed = await replica.get('evt_fails');
		expect(failed).toMatchObject({status: 'failed', error: 'completion timed out', attempts: 1});
		expect((await replica.list({status: 'failed'})).map(event => event.id)).toEqual(['evt_fails']);
		expect((await replica.list({status: 'ignored'}))[0]).toMatchObject({id: 'evt_other', note: 'not a chosen-module event'});
		expect((await replica.list({type: 'user-message.created'})).map(event => event.id)).toEqual(['evt_other']);
		expect((await replica.list({limit: 1}))).toHaveLength(1);
		expect(await replica.list({sinceMs: Date.now() + 60_000})).toEqual([]);
		expect(await replica.stats()).toEqual({count: 2, queue: {waiting: 0, active: 0, completed: 1, failed: 1}});

		expect(await replica.replay('evt_fails', recordingHandler([]))).toEqual({outcome: 'queued'});
		await waitFor(async () => (await statusOf(replica, 'evt_fails')) === 'answered', {what: 'the replayed answer'});
		const replayed = await replica.get('evt_fails');
		expect(replayed?.attempts).toBe(2);
		expect(replayed?.error).toBeUndefined();
		// The new attempt started with no steps.
		expect(seen.at(-1)).toMatchObject({id: 'evt_fails', steps: []});
		expect(replayed?.steps.map(step => step.name)).toEqual(['search-done', 'message-written']);

		expect(await replica.replay('evt_fail', recordingHandler([]))).toEqual({outcome: 'unknown', near: ['evt_fails']});
		expect(await replica.get('evt_nothing')).toBeUndefined();
		await replica.stop(1000);
	});

	it('refuses to replay an event a replica is answering, naming the replica', async () => {
		const queue = redis.queueName();
		const replica = await backend(queue, {replicaName: 'replica-a'});
		let release: (() => void) | undefined;
		await replica.start(async () => new Promise(resolve => {
			release = () => {
				resolve({status: 'answered'});
			};
		}), {concurrency: 1});
		await replica.accept(newEvent('evt_busy'));
		await waitFor(() => release !== undefined, {what: 'the job to start'});
		expect(replica.active()).toBe(1);
		expect(await replica.replay('evt_busy', recordingHandler([]))).toEqual({outcome: 'busy', holder: 'replica-a'});
		expect((await replica.stats()).queue).toMatchObject({active: 1});
		release?.();
		await waitFor(async () => (await statusOf(replica, 'evt_busy')) === 'answered', {what: 'the answer'});
		await replica.stop(1000);
	});

	it('drains on stop: a job still running at the deadline is aborted through its signal and ends failed', async () => {
		const queue = redis.queueName();
		const replica = await backend(queue);
		let aborted = false;
		await replica.start(async job => new Promise(resolve => {
			job.signal.addEventListener('abort', () => {
				aborted = true;
				resolve({status: 'failed', error: 'cut off by shutdown'});
			});
		}), {concurrency: 1});
		await replica.accept(newEvent('evt_slow'));
		await waitFor(() => replica.active() === 1, {what: 'the job to start'});
		expect(await replica.stop(50)).toEqual({cutOff: 1});
		expect(aborted).toBe(true);
		expect(await replica.get('evt_slow')).toMatchObject({status: 'failed', error: 'cut off by shutdown'});
	});

	it('answers accept with BackendUnavailableError when Redis is down, with the URL masked', async () => {
		const own = await startRedis({password: 's3cret-pass-word', forceLocal: true});
		try {
			const replica = await openRedisBackend({url: own.url, queueName: own.queueName()});
			open.push(replica);
			expect(await replica.accept(newEvent('evt_up'))).toBe('stored');
			await own.stop();
			const error: unknown = await replica.accept(newEvent('evt_down')).catch((error: unknown) => error);
			expect(error).toBeInstanceOf(BackendUnavailableError);
			expect((error as BackendUnavailableError).code).toBe('backend-unavailable');
			expect((error as Error).message).toContain('evt_down');
			expect((error as Error).message).not.toContain('s3cret-pass-word');
			expect((error as Error).message).toContain('…word');
		} finally {
			await own.stop();
		}
	});

	it('stops and closes during an outage: a running worker does not hold the shutdown', async () => {
		const own = await startRedis({forceLocal: true});
		try {
			const seen: Seen[] = [];
			// The hang-up bound shortened, as the drain deadline is: the test waits on neither.
			const replica = await openRedisBackend({url: own.url, queueName: own.queueName(), ...fast, hangUpMs: 100});
			await replica.start(recordingHandler(seen), {concurrency: 2});
			expect(await replica.accept(newEvent('evt_before_outage'))).toBe('stored');
			await waitFor(async () => await statusOf(replica, 'evt_before_outage') === 'answered' && replica.active() === 0, {what: 'the event answered'});
			await own.stop();
			await waitFor(async () => await replica.accept(newEvent('evt_in_outage')).catch((error: unknown) => error) instanceof BackendUnavailableError, {what: 'the replica to see Redis gone'});
			// BullMQ's own close never ends while its blocking connection reconnects: the drain
			// deadline bounds stop, and close hangs up regardless.
			expect(await replica.stop(100)).toEqual({cutOff: 0});
			await replica.close();
		} finally {
			await own.stop();
		}
	});

	it('connects with a password in the URL (requirepass), refuses a wrong one and an unreachable server with a masked URL', async () => {
		const own = await startRedis({password: 'pa55:word/with@odd', forceLocal: true});
		try {
			const replica = await openRedisBackend({url: own.url, queueName: own.queueName()});
			open.push(replica);
			expect(await replica.accept(newEvent('evt_auth'))).toBe('stored');
			expect((await replica.get('evt_auth'))?.status).toBe('received');

			const wrong = own.url.replace(encodeURIComponent('pa55:word/with@odd'), 'not-the-password');
			const refused: unknown = await openRedisBackend({url: wrong}).catch((error: unknown) => error);
			expect(refused).toBeInstanceOf(RedisError);
			expect((refused as RedisError).code).toBe('redis-auth');
			expect((refused as RedisError).data.url).toBe(`redis://:…word@127.0.0.1:${String(own.port)}`);
			expect((refused as Error).message).not.toContain('not-the-password');
		} finally {
			await own.stop();
		}

		const unreachable: unknown = await openRedisBackend({url: `redis://user:topsecret@127.0.0.1:${String(own.port)}`}).catch((error: unknown) => error);
		expect(unreachable).toBeInstanceOf(RedisError);
		expect((unreachable as RedisError).code).toBe('redis-unreachable');
		expect((unreachable as RedisError).data.url).toBe(`redis://user:…cret@127.0.0.1:${String(own.port)}`);
		expect(JSON.stringify((unreachable as RedisError).data)).not.toContain('topsecret');

		const invalid: unknown = await openRedisBackend({url: 'http://user:topsecret@host'}).catch((error: unknown) => error);
		expect((invalid as RedisError).code).toBe('redis-url-invalid');
		expect((invalid as Error).message).not.toContain('topsecret');
	});
});
