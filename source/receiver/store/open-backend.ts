/**
 * Opens the backend `serve` keeps its events in: Redis (BullMQ) when a URL is given, else the
 * journal in the data directory. Both load on demand, so a run that uses one never loads the other.
 */
import {CoreError} from '../../core-error.js';
import {errorMessage} from '../../format/value.js';
import type {EventBackend} from './backend.js';
import type {JournalMode} from '../journal/index.js';

export {defaultDataDir} from '../journal/open/location.js';

export type BackendChoice = {
	/** `redis://` or `rediss://`; when set, replicas share the work through Redis. */
	redisUrl?: string;
	/** The journal's directory (ignored with Redis). */
	directory: string;
	/** How long events are kept, ms (each backend has its default). */
	maxAgeMs?: number;
	/** How many events are kept at most (each backend has its default). */
	maxEntries?: number;
	/** How the journal is opened: `serve` (the default) owns the directory; `read` and `replay` do not. */
	mode?: JournalMode;
	/** Redis: BullMQ's limiter shared by the replicas (at most `max` jobs started per `durationMs`). */
	limiter?: {max: number; durationMs: number};
	/** Redis: check whether it persists its data (serve does, to warn when it does not). */
	checkDurability?: boolean;
	/** Redis: a volatile Redis keeps serve ready (the operator accepted it; serve warns). */
	allowVolatile?: boolean;
	/** Redis: acknowledge only once this many replicas confirm the event (WAIT), within `waitTimeoutMs`. */
	waitReplicas?: number;
	waitTimeoutMs?: number;
	/** Journal: the owning command named to a second one refused (`serve`, `listen`). */
	owner?: string;
	/** Journal: read the whole file in a child first (default true; the inspector, which reads pages only, skips it). */
	verify?: boolean;
};

export type BackendMissingData = {kind: 'journal' | 'redis'; reason: string};

/** A backend module could not be loaded (a broken install). */
export class BackendMissingError extends CoreError<'backend-missing', BackendMissingData> {}

async function load<T>(importer: () => Promise<T>, kind: BackendMissingData['kind']): Promise<T> {
	try {
		return await importer();
	} catch (error) {
		const reason = errorMessage(error);
		throw new BackendMissingError('backend-missing', {kind, reason}, `the ${kind} backend could not be loaded: ${reason}`, {cause: error});
	}
}

export async function openBackend(choice: BackendChoice): Promise<EventBackend> {
	const retention = {
		...(choice.maxAgeMs === undefined ? {} : {maxAgeMs: choice.maxAgeMs}),
		...(choice.maxEntries === undefined ? {} : {maxEntries: choice.maxEntries}),
	};
	if (choice.redisUrl) {
		const {openRedisBackend} = await load(async () => import('../redis/index.js'), 'redis');
		return openRedisBackend({url: choice.redisUrl, ...retention, ...(choice.limiter ? {limiter: choice.limiter} : {}), ...(choice.checkDurability ? {checkDurability: true} : {}),
			...(choice.allowVolatile ? {allowVolatile: true} : {}),
			...(choice.waitReplicas ? {waitReplicas: choice.waitReplicas, ...(choice.waitTimeoutMs === undefined ? {} : {waitTimeoutMs: choice.waitTimeoutMs})} : {})});
	}

	const {openJournal} = await load(async () => import('../journal/index.js'), 'journal');
	return openJournal({directory: choice.directory, ...retention, ...(choice.mode ? {mode: choice.mode} : {}), ...(choice.verify === false ? {verify: false} : {}), ...(choice.owner === undefined ? {} : {owner: choice.owner})});
}
