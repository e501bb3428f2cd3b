/**
 * Where `serve` and the `events` commands keep events: `--data-dir` (env PLATFORM_TUI_DATA_DIR) or
 * `--redis` (env PLATFORM_REDIS_URL). One parser for all of them; it loads no backend.
 */
import type {FlagSpec} from '../../cli/types.js';
import {stringFlag, urlFlag} from '../../cli/validators.js';

export type StoreOptions = {dataDir?: string; redisUrl?: string};

export const storeFlags = {
	dataDir: {type: 'string', description: 'Where the event journal lives (env PLATFORM_TUI_DATA_DIR; default: the app\'s data folder)', placeholder: 'DIR'},
	redis: {type: 'string', description: 'Read the events replicas share in Redis instead (env PLATFORM_REDIS_URL)', placeholder: 'URL'},
} satisfies Record<string, FlagSpec>;

/** The flag, else its environment variable; a URL that is not redis:// or rediss:// is a usage error. */
export function parseStore(flags: Record<string, unknown>, env: NodeJS.ProcessEnv): StoreOptions {
	const dataDir = stringFlag(flags, 'dataDir') ?? (env.PLATFORM_TUI_DATA_DIR?.trim() || undefined);
	const redisUrl = urlFlag(flags.redis === undefined ? {redis: env.PLATFORM_REDIS_URL?.trim() || undefined} : flags, 'redis', {protocols: ['redis:', 'rediss:']});
	return {...(dataDir ? {dataDir} : {}), ...(redisUrl ? {redisUrl} : {})};
}
