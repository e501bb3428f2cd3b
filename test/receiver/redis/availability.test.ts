/**
 * The exactly-once window outlives the count bound, and `serve --redis` (the built CLI) answers
 * 503 while Redis is down and 200 again once it is back.
 */
import {Redis} from 'ioredis';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {request} from 'undici';
import {buildTestEvent, signDelivery} from '../../../source/receiver/intake/test-event.js';
import {defaultPrefix, minRetentionMs, openRedisBackend} from '../../../source/receiver/redis/index.js';
import {startCli} from '../../support/cli.js';
import {startPlatform, type TestPlatform} from '../../support/platform.js';
import {hasRedisServer, redisSkipReason, startRedis, type TestRedis} from '../../support/redis.js';
import {waitFor} from '../../support/wait.js';
import {newEvent, recordingHandler, type Seen} from './events.js';

describe.skipIf(redisSkipReason !== undefined)('redis retention', () => {
	let redis: TestRedis;

	beforeAll(async () => {
		redis = await startRedis();
	});

	afterAll(async () => {
		await redis.stop();
	});

	it('keeps an id 24 h after the count bound removed its event: the redelivery is a duplicate and does not run', async () => {
		const queueName = redis.queueName();
		const replica = await openRedisBackend({url: redis.url, queueName, maxEntries: 1});
		const raw = new Redis(redis.url);
		try {
			const seen: Seen[] = [];
			await replica.start(recordingHandler(seen), {concurrency: 1});
			expect(await replica.accept(newEvent('evt_first'))).toBe('stored');
			await waitFor(async () => (await replica.get('evt_first'))?.status === 'answered', {what: 'the first answer'});
			expect(await replica.accept(newEvent('evt_second'))).toBe('stored');
			expect(await replica.accept(newEvent('evt_third'))).toBe('stored');
			// The count bound (1 completed job) removes the first job once the others complete.
			await waitFor(async () => (await replica.get('evt_first')) === undefined && (await replica.get('evt_third'))?.status === 'answered', {what: 'the count bound to remove evt_first'});

			expect(await replica.accept(newEvent('evt_first'))).toBe('duplicate');
			const ttl = await raw.pttl(`${defaultPrefix}:${queueName}:de:evt_first`);
			expect(ttl).toBeGreaterThan(minRetentionMs - 60_000);
			expect(ttl).toBeLessThanOrEqual(minRetentionMs);
			await replica.stop(1000);
			expect(seen.map(item => item.id)).toEqual(['evt_first', 'evt_second', 'evt_third']);
		} finally {
			raw.disconnect();
			await replica.close();
		}
	});
});

describe.skipIf(redisSkipReason !== undefined)('redis: ids held by an earlier release', () => {
	let redis: TestRedis;

	beforeAll(async () => {
		redis = await startRedis();
	});

	afterAll(async () => {
		await redis.stop();
	});

	it('an id held by the key of the release before (`id:<job id>`) is still a duplicate after the upgrade', async () => {
		const queueName = redis.queueName();
		const replica = await openRedisBackend({url: redis.url, queueName});
		const raw = new Redis(redis.url);
		try {
			await raw.set(`${defaultPrefix}:${queueName}:id:evt_before`, '1', 'PX', minRetentionMs);
			expect(await replica.holds?.('evt_before')).toBe(true);
			expect(await replica.accept(newEvent('evt_before'))).toBe('duplicate');
			expect(await replica.get('evt_before')).toBeUndefined();
		} finally {
			raw.disconnect();
			await replica.close();
		}
	});
});

describe.skipIf(redisSkipReason !== undefined || !hasRedisServer)('serve --redis while Redis goes away and comes back', () => {
	let platform: TestPlatform;

	beforeAll(async () => {
		platform = await startPlatform();
	});

	afterAll(async () => {
		await platform.close();
	});

	it('answers 503 while Redis is down and 200 again after it restarts', async () => {
		let redis = await startRedis({forceLocal: true, appendonly: true});
		const port = redis.port ?? 0;
		const run = startCli(['serve', '--redis', redis.url, '--port', '0'], {env: platform.env()});
		try {
			const line = await waitFor(() => /Listening on (\S+)/.exec(run.stderr()), {what: `serve to listen (stderr: ${run.stderr()})`});
			const url = `${line[1] ?? ''}/webhook`;
			const {platform: local} = platform;
			const deliver = async (): Promise<number> => {
				const delivery = signDelivery(buildTestEvent('user-message', {userId: local.userId, companyId: local.companyId}), local.endpointSecret);
				const response = await request(url, {method: 'POST', body: delivery.body, headers: delivery.headers});
				await response.body.dump();
				return response.statusCode;
			};

			expect(await deliver()).toBe(200);
			await redis.stop();
			expect(await deliver()).toBe(503);
			expect(await deliver()).toBe(503);

			redis = await startRedis({port, appendonly: true});
			// The replica reconnects by itself (at most 2 s between attempts).
			await waitFor(async () => await deliver() === 200, {intervalMs: 200, what: 'a 200 after Redis came back'});
			expect(await deliver()).toBe(200);
		} finally {
			run.child.kill('SIGTERM');
			await run.closed;
			await redis.stop();
		}
	});
});
