/**
 * Where `serve` and the `events` commands keep events: `--data-dir` (env PLATFORM_TUI_DATA_DIR) or
 * `--redis` (env PLATFORM_REDIS_URL). One parser for all of them; it loads no backend.
 */
import {stringFlag, urlFlag} from '../../cli/validators.js';

export {storeFlags} from '../../cli/flags.js';

export type StoreOptions = {dataDir?: string; redisUrl?: string};

/** The flag, else its environment variable; a URL that is not redis:// or rediss:// is a usage error. */
export function parseStore(flags: Record<string, unknown>, env: NodeJS.ProcessEnv): StoreOptions {
	const dataDir = stringFlag(flags, 'dataDir') ?? (env.PLATFORM_TUI_DATA_DIR?.trim() || undefined);
	const redisUrl = urlFlag(flags.redis === undefined ? {redis: env.PLATFORM_REDIS_URL?.trim() || undefined} : flags, 'redis', {protocols: ['redis:', 'rediss:']});
	return {...(dataDir ? {dataDir} : {}), ...(redisUrl ? {redisUrl} : {})};
}
