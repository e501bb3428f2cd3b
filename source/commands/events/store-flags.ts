/**
 * Where `serve` and the `events` commands keep events: `--data-dir` (env PLATFORM_TUI_DATA_DIR) or
 * `--redis` (env PLATFORM_REDIS_URL). One parser for all of them; it loads no backend.
 */
import {readFlags} from '../../cli/flag-values.js';
import {storeFlags} from '../../cli/flags.js';

export {storeFlags} from '../../cli/flags.js';

export type StoreOptions = {dataDir?: string; redisUrl?: string};

/** The flag, else its declared environment variable; a URL that is not redis:// or rediss:// is a usage error. */
export function parseStore(flags: Record<string, unknown>, env: NodeJS.ProcessEnv): StoreOptions {
	const {dataDir, redis: redisUrl} = readFlags(storeFlags, {flags, env});
	return {...(dataDir ? {dataDir} : {}), ...(redisUrl ? {redisUrl} : {})};
}
