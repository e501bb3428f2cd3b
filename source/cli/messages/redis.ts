/**
 * The sentences for the Redis backend's error codes (source/receiver/redis/errors.ts). The URL in
 * the data is already masked.
 */
import type {StoreDurability} from '../../receiver/store/backend.js';
import type {RedisErrorData} from '../../receiver/redis/errors.js';
import {checkByHand} from '../../receiver/redis/persistence.js';
import type {MessageTable} from './types.js';

export const redisMessages: MessageTable = {
	'redis-url-invalid': (data: RedisErrorData) => ({
		message: `The Redis URL ${data.url} is not a redis:// or rediss:// URL (nor a redis+cluster:// or redis+sentinel:// one).`,
		next: 'Pass --redis redis://[user:password@]host:port[/db] (rediss:// for TLS), redis+cluster://host:port,host:port for a Cluster or redis+sentinel://host:port,host:port/mastername behind Sentinel, or set PLATFORM_REDIS_URL.',
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
 * serve's warning about a Redis that may lose acknowledged events (volatile: the settings, what
 * they risk and the commands that fix them; unknown: what to check by hand); undefined when Redis
 * keeps them. `url` is masked.
 */
export function durabilityWarning(durability: StoreDurability | undefined, url: string): string | undefined {
	switch (durability?.state) {
		case 'volatile': {
			return `Redis at ${url} may lose acknowledged events: ${durability.detail ?? 'persistence is off'}.`;
		}

		case 'unknown': {
			return `Could not check whether Redis at ${url} keeps acknowledged events (${durability.reason ?? 'no answer'}); ${checkByHand}: snapshots alone, or an evicting policy, lose acknowledged events.`;
		}

		default: {
			return undefined;
		}
	}
}

/** Why serve refuses a volatile Redis, and the flag that runs it anyway. */
export function volatileRefusal(durability: StoreDurability, url: string): string {
	return `${durabilityWarning(durability, url) ?? `Redis at ${url} may lose acknowledged events.`} Fix these settings, or pass --allow-volatile-redis to run anyway (serve then warns on every status line).`;
}
