/**
 * Where `serve` and the `events` commands keep events: `--data-dir` (env PLATFORM_TUI_DATA_DIR) or
 * `--redis` (env PLATFORM_REDIS_URL). One parser for all of them; it loads no backend.
 */
import type {FlagSpec} from '../types.js';
import {parseRedisTarget} from '../../receiver/redis/target.js';
import {badFlag, stringFlag} from '../validators.js';

export type StoreOptions = {dataDir?: string; redisUrl?: string};

export const storeFlags = {
	dataDir: {type: 'string', description: 'Where the event journal lives (env PLATFORM_TUI_DATA_DIR; default: the app\'s data folder)', placeholder: 'DIR'},
	redis: {type: 'string', description: 'Read the events replicas share in Redis instead (env PLATFORM_REDIS_URL)', placeholder: 'URL'},
} satisfies Record<string, FlagSpec>;

/**
 * The flag, else its environment variable; a URL that is none of the Redis forms (redis://,
 * rediss://, redis+cluster://, redis+sentinel:// and their TLS forms) is a usage error.
 */
export function parseStore(flags: Record<string, unknown>, env: NodeJS.ProcessEnv): StoreOptions {
	const dataDir = stringFlag(flags, 'dataDir') ?? (env.PLATFORM_TUI_DATA_DIR?.trim() || undefined);
	const redisUrl = redisUrlFlag(flags.redis === undefined ? {redis: env.PLATFORM_REDIS_URL?.trim() || undefined} : flags);
	return {...(dataDir ? {dataDir} : {}), ...(redisUrl ? {redisUrl} : {})};
}

function redisUrlFlag(flags: Record<string, unknown>): string | undefined {
	const raw = flags.redis;
	if (raw === undefined || raw === '') {
		return undefined;
	}

	// The URL parser drops tabs and line breaks before parsing; drop them here too, so the value kept is the one checked.
	const value = typeof raw === 'string' ? raw.trim().replaceAll(/[\t\n\r]/g, '') : '';
	if (parseRedisTarget(value) === undefined) {
		badFlag('redis', 'a URL starting with redis:// or rediss:// (redis+cluster://host:port,host:port or redis+sentinel://host:port,host:port/mastername for a Cluster or Sentinel)', raw);
	}

	return value;
}
