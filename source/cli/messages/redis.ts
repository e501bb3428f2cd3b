/**
 * The sentences for the Redis backend's error codes (source/receiver/redis/errors.ts). The URL in
 * the data is already masked.
 */
import type {StoreDurability} from '../../receiver/backend.js';
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

/**
 * serve's start-up warning about a Redis that may lose acknowledged events (no persistence, or
 * persistence that could not be checked); undefined when Redis persists its data. `url` is masked.
 */
export function durabilityWarning(durability: StoreDurability | undefined, url: string): string | undefined {
	switch (durability?.state) {
		case 'volatile': {
			return `Redis at ${url} has persistence off (${durability.detail ?? 'appendonly no, save ""'}): acknowledged events still in it are lost if Redis restarts or is wiped. Turn on AOF (appendonly yes) or RDB snapshots (save), or run a Redis replica.`;
		}

		case 'unknown': {
			return `Could not check whether Redis at ${url} persists its data (${durability.reason ?? 'no answer'}); unless AOF or RDB snapshots are on, acknowledged events still in it are lost if Redis restarts.`;
		}

		default: {
			return undefined;
		}
	}
}
