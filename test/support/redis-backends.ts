/**
 * One throwaway Redis for a describe block, and the event backends its tests open on it: each one
 * opened here is closed after the block, then Redis is stopped. Call it inside `describe`.
 */
import {afterAll, beforeAll} from 'vitest';
import {openRedisBackend, type RedisBackendOptions} from '../../source/receiver/redis/index.js';
import type {EventBackend} from '../../source/receiver/store/backend.js';
import {startRedis, type TestRedis} from './redis.js';

type Extra = Omit<RedisBackendOptions, 'url' | 'queueName'>;

export function redisBackends(defaults: Extra = {}) {
	let started: TestRedis | undefined;
	const opened: EventBackend[] = [];
	beforeAll(async () => {
		started = await startRedis();
	});

	afterAll(async () => {
		await Promise.all(opened.map(async backend => backend.close()));
		await started?.stop();
	});

	const redis = (): TestRedis => {
		if (!started) {
			throw new Error('The suite\'s Redis is not started yet: use it inside a test.');
		}

		return started;
	};

	return {
		redis,
		/** A backend on `url` (the suite's Redis unless named) and `queueName`, closed after the block. */
		async open(queueName: string, extra: Extra & {url?: string} = {}): Promise<EventBackend> {
			const backend = await openRedisBackend({url: redis().url, queueName, ...defaults, ...extra});
			opened.push(backend);
			return backend;
		},
	};
}
