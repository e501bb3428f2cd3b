import type {Socket} from 'node:net';
import {Redis} from 'ioredis';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {writeTogether} from '../../../source/receiver/redis/write-together.js';
import {redisSkipReason, startRedis, type TestRedis} from '../../support/redis.js';

describe.skipIf(redisSkipReason !== undefined)('redis: the accepts of one turn in one write', () => {
	let redis: TestRedis;
	beforeAll(async () => {
		redis = await startRedis();
	});
	afterAll(async () => {
		await redis.stop();
	});

	it('holds the commands of a turn in the socket and sends them together after it; every reply arrives in order', async () => {
		const client = new Redis(redis.url, {lazyConnect: true});
		await client.connect();
		try {
			const {stream} = client as unknown as {stream: Socket};
			const writes: number[] = [];
			const writev = (stream as unknown as {_writev: (chunks: unknown[], callback: () => void) => void})._writev.bind(stream);
			(stream as unknown as {_writev: (chunks: unknown[], callback: () => void) => void})._writev = (chunks, callback) => {
				writes.push(chunks.length);
				writev(chunks, callback);
			};

			const replies: Array<Promise<unknown>> = [];
			for (let index = 0; index < 10; index++) {
				writeTogether(client);
				replies.push(client.set(`together:${index}`, String(index)), client.get(`together:${index}`));
			}

			// Corked once, however many accepts the turn had.
			expect(stream.writableCorked).toBe(1);
			const answered = await Promise.all(replies);
			expect(stream.writableCorked).toBe(0);
			expect(answered).toEqual(Array.from({length: 10}, (_, index) => ['OK', String(index)]).flat());
			// The 20 commands left in one write of all their chunks.
			expect(writes).toEqual([20]);
		} finally {
			client.disconnect();
		}
	});
});
