/** Reads of the journal a backend answers from what is on disk: the filtered list, the backlog. */
import type {Backlog, ListFilter, StoredEvent} from '../backend.js';
import {matchesFilter} from '../list-filter.js';
import {fromStored} from './record-codec.js';
import {stepsOf, toStored, type Stores} from './store.js';

/** The events matching `filter`, newest first, with their steps. */
export function listEvents(stores: Stores, filter: ListFilter): StoredEvent[] {
	const found: StoredEvent[] = [];
	const limit = filter.limit ?? Number.POSITIVE_INFINITY;
	for (const {key, value} of stores.events.getRange({reverse: true})) {
		if (found.length >= limit || (filter.sinceMs !== undefined && key[0] < filter.sinceMs)) {
			break;
		}

		const record = fromStored(value);
		if (!matchesFilter(record, filter)) {
			continue;
		}

		found.push(toStored(record, stepsOf(stores, record.id, record.generation)));
	}

	return found;
}

/** The unfinished events: their count and when the oldest came. */
export function backlogOf(stores: Stores): Backlog {
	let oldest: number | undefined;
	for (const key of stores.queue.getKeys({limit: 1})) {
		oldest = key[0];
	}

	const count = stores.queue.getCount();
	return oldest === undefined ? {count} : {count, oldestReceivedAt: new Date(oldest).toISOString()};
}
