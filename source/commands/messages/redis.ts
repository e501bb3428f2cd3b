/**
 * The sentences for the Redis backend's error codes (source/receiver/redis/errors.ts). The URL in
 * the data is already masked.
 */
import type {RedisErrorData} from '../../receiver/redis/errors.js';
import type {MessageTable} from './types.js';

export const redisMessages: MessageTable = {
	'redis-url-invalid': (data: RedisErrorData) => ({
		message: `The Redis URL ${data.url} is not a redis:// or rediss:// URL.`,
		next: 'Pass --redis redis://[user:password@]host:port[/db] (rediss:// for TLS), or set PLATFORM_REDIS_URL.',
	}),
	'redis-unreachable': (data: RedisErrorData) => ({
		message: `Could not connect to Redis at ${data.url}${data.reason ? ` (${data.reason})` : ''}.`,
		next: 'Check that Redis is running and reachable from here, and that the URL (host, port, redis:// or rediss://) is right.',
	}),
	'redis-auth': (data: RedisErrorData) => ({
		message: `Redis at ${data.url} refused the user name or password in the URL.`,
		next: 'Put the right credentials in the URL (redis://user:password@host:port), e.g. through PLATFORM_REDIS_URL so they stay out of shell history.',
	}),
};
