/** Reads of the journal a backend answers from what is on disk: the filtered list, the backlog. */
import type {Backlog, ListFilter, StoredEvent} from '../../store/backend.js';
import {matchesFilter} from '../../store/list-filter.js';
import {eventsInRange, stepsOf, toStored, type Stores} from '../store.js';

/** The events matching `filter`, newest first, with their steps; a damaged record is told to `filter.onUnreadable`. */
export function listEvents(stores: Stores, filter: ListFilter): StoredEvent[] {
	const found: StoredEvent[] = [];
	const limit = filter.limit ?? Number.POSITIVE_INFINITY;
	for (const read of eventsInRange(stores, {reverse: true})) {
		if (found.length >= limit || (filter.sinceMs !== undefined && read.key[0] < filter.sinceMs)) {
			break;
		}

		if ('damaged' in read) {
			// Left out and named: a damaged record is not read as an event.
			filter.onUnreadable?.(read.key[1], read.damaged.data.reason);
			continue;
		}

		const {record} = read;
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

/** Up to `limit` ids of the queue (unfinished events), oldest first, without those `skip` names. */
export function scanQueue(stores: Stores, limit: number, skip: (id: string) => boolean): string[] {
	const found: string[] = [];
	for (const key of stores.queue.getKeys({})) {
		if (found.length >= limit) {
			break;
		}

		if (!skip(key[1])) {
			found.push(key[1]);
		}
	}

	return found;
}
