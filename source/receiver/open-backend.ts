/**
 * Opens the backend `serve` keeps its events in: Redis (BullMQ) when a URL is given, else the
 * journal in the data directory. Both load on demand, so a run that uses one never loads the other.
 */
import {CoreError} from '../core-error.js';
import type {EventBackend} from './backend.js';

export {defaultDataDir} from './journal/location.js';

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

export type BackendMissingData = {kind: 'journal' | 'redis'; reason: string};

/** A backend module could not be loaded (a broken install). */
export class BackendMissingError extends CoreError<'backend-missing', BackendMissingData> {}

// The paths are in variables so this module builds before those backends exist.
const journalModule = './journal/index.js';
const redisModule = './redis/index.js';

async function load<T>(path: string, kind: BackendMissingData['kind']): Promise<T> {
	try {
		return await import(path) as T;
	} catch (error) {
		const reason = error instanceof Error ? error.message : 'unknown';
		throw new BackendMissingError('backend-missing', {kind, reason}, `the ${kind} backend could not be loaded: ${reason}`, {cause: error});
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
