/**
 * The raw body bytes in Redis: a signed body that is not valid UTF-8 (and one with a byte-order
 * mark) is accepted, stored, forwarded, replayed and exported (`events export --redis`) byte for
 * byte. The memory and journal runs are in test/receiver/raw-body.test.ts.
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {openRedisBackend} from '../../../source/receiver/redis/index.js';
import {hasRedisServer, redisSkipReason, startRedis, type TestRedis} from '../../support/redis.js';
import {newEventId} from '../helpers.js';
import {bomBody, exportedBytes, latin1Body, rawBodyRoundTrip} from '../raw-body.js';

describe.skipIf(redisSkipReason !== undefined || !hasRedisServer)('raw body bytes in Redis', () => {
	let redis: TestRedis;

	beforeAll(async () => {
		// Its own server: `events export --redis` reads the default queue.
		redis = await startRedis({forceLocal: true});
	});

	afterAll(async () => {
		await redis.stop();
	});

	it('stores, forwards, replays and exports a body that is not UTF-8 with its exact bytes', async () => {
		const [latinId, bomId] = [newEventId(), newEventId()];
		const latin1 = {id: latinId, body: latin1Body(latinId)};
		const bom = {id: bomId, body: bomBody(bomId)};
		const backend = await openRedisBackend({url: redis.url, lockDurationMs: 1000, stalledIntervalMs: 500});
		const stored = await rawBodyRoundTrip(backend, [latin1, bom]);
		expect(stored.map(event => event.bodyEncoding)).toEqual(['base64', undefined]);
		for (const {id, body} of [latin1, bom]) {
			expect((await exportedBytes(id, {redis: redis.url})).file.equals(body)).toBe(true);
		}
	});
});
