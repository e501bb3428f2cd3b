/**
 * Retention: finished events older than the age bound go, then the oldest finished ones beyond
 * the count bound. An unfinished event (in the queue: received, or in processing) is never
 * removed: the journal refuses new deliveries while the count bound is full of them. Event
 * ids (the exactly-once record) go by age only, and never before 24 h, so a redelivery within a
 * day is recognised even when the count bound dropped the event itself.
 */
import {removeSteps, type Stores} from '../store.js';
import type {TimeKey} from '../records/shapes.js';

/** Exactly-once ids are kept at least this long, whatever the age bound. */
export const minimumIdAgeMs = 24 * 60 * 60 * 1000;

export type PruneLimits = {maxAgeMs: number; maxEntries: number; now: number};

export type PruneResult = {events: number; ids: number};

/** Deletions per commit (writes issued in one event-loop turn commit together), so a large prune never builds one huge transaction. */
const batchSize = 1000;

function removeEvent(stores: Stores, key: TimeKey): Promise<boolean> {
	// One commit with the event's removal, whose failure the caller gets.
	stores.queue.remove(key).catch(() => undefined);
	stores.claims.remove(key[1]).catch(() => undefined);
	removeSteps(stores, key[1]);
	return stores.events.remove(key);
}

/**
 * Prunes; `keep` names events that must stay (running in this process). Bounded: at most one pass
 * over the events and one over the ids.
 */
export async function prune(stores: Stores, limits: PruneLimits, keep: (id: string) => boolean): Promise<PruneResult> {
	const cutoff = limits.now - limits.maxAgeMs;
	const doomed: TimeKey[] = [];
	const removable = (key: TimeKey) => !keep(key[1]) && !stores.queue.doesExist(key);
	for (const key of stores.events.getKeys({end: [cutoff, '']})) {
		if (removable(key)) {
			doomed.push(key);
		}
	}

	const excess = stores.events.getCount() - doomed.length - limits.maxEntries;
	if (excess > 0) {
		let taken = 0;
		for (const key of stores.events.getKeys({start: [cutoff, '']})) {
			if (taken >= excess) {
				break;
			}

			if (removable(key)) {
				doomed.push(key);
				taken++;
			}
		}
	}

	const idCutoff = limits.now - Math.max(limits.maxAgeMs, minimumIdAgeMs);
	const oldIds: string[] = [];
	for (const {key, value} of stores.seen.getRange({})) {
		if (value < idCutoff && removable([value, key])) {
			oldIds.push(key);
		}
	}

	for (let index = 0; index < doomed.length; index += batchSize) {
		await Promise.all(doomed.slice(index, index + batchSize).map(key => removeEvent(stores, key)));
	}

	for (let index = 0; index < oldIds.length; index += batchSize) {
		await Promise.all(oldIds.slice(index, index + batchSize).map(async id => stores.seen.remove(id)));
	}

	return {events: doomed.length, ids: oldIds.length};
}
