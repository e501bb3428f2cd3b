/**
 * Opens the backend `serve` keeps its events in: Redis (BullMQ) when a URL is given, else the
 * journal in the data directory. Both load on demand, so a run that uses one never loads the other.
 */
import {join} from 'node:path';
import envPaths from 'env-paths';
import {CoreError} from '../core-error.js';
import type {EventBackend} from './backend.js';

export type BackendChoice = {
	/** `redis://` or `rediss://`; when set, replicas share the work through Redis. */
	redisUrl?: string;
	/** The journal's directory (ignored with Redis). */
	directory: string;
	/** How long events are kept, ms. */
	maxAgeMs: number;
	/** How many events are kept at most. */
	maxEntries: number;
};

type JournalModule = {openJournal: (options: {directory: string; maxAgeMs: number; maxEntries: number}) => Promise<EventBackend>};
type RedisModule = {openRedisBackend: (options: {url: string; maxAgeMs: number; maxEntries: number}) => Promise<EventBackend>};
type LocationModule = {defaultDataDir: (env: NodeJS.ProcessEnv) => string};

export type BackendMissingData = {kind: 'journal' | 'redis'; reason: string};

/** A backend module could not be loaded (a broken install). */
export class BackendMissingError extends CoreError<'backend-missing', BackendMissingData> {}

// The paths are in variables so this module builds before those backends exist.
const journalModule = './journal/index.js';
const redisModule = './redis/index.js';
const locationModule = './journal/location.js';

async function load<T>(path: string, kind: BackendMissingData['kind']): Promise<T> {
	try {
		return await import(path) as T;
	} catch (error) {
		const reason = error instanceof Error ? error.message : 'unknown';
		throw new BackendMissingError('backend-missing', {kind, reason}, `the ${kind} backend could not be loaded: ${reason}`, {cause: error});
	}
}

/** The data directory: the env-paths data folder of the app unless the journal names another. */
export async function defaultDataDir(env: NodeJS.ProcessEnv): Promise<string> {
	try {
		const location = await import(locationModule) as LocationModule;
		return location.defaultDataDir(env);
	} catch {
		return env.PLATFORM_TUI_DATA_DIR ?? join(envPaths('platform-tui', {suffix: ''}).data);
	}
}

export async function openBackend(choice: BackendChoice): Promise<EventBackend> {
	if (choice.redisUrl) {
		const {openRedisBackend} = await load<RedisModule>(redisModule, 'redis');
		return openRedisBackend({url: choice.redisUrl, maxAgeMs: choice.maxAgeMs, maxEntries: choice.maxEntries});
	}

	const {openJournal} = await load<JournalModule>(journalModule, 'journal');
	return openJournal({directory: choice.directory, maxAgeMs: choice.maxAgeMs, maxEntries: choice.maxEntries});
}
