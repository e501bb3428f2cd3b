/**
 * Reading the journal a page at a time, and finding events by the start of their id.
 *
 * The `events` database is keyed by [received ms, id], so a page next to a known key is one range
 * read from that key: the inspector never holds more than the pages it shows, whatever the
 * journal's size. Ids are keys of `seen`, so the ids starting with a prefix are one range read
 * there too; events not yet indexed (at most one flush interval of them, from the mark on) are
 * looked at as well.
 */
import type {StoredEvent} from '../../store/backend.js';
import {eventsInRange, stepsOf, toStored, type Stores} from '../store.js';
import type {TimeKey} from './shapes.js';

/** Which way a page goes from its cursor: `older` (down the list, newest first) or `newer`. */
export type PageDirection = 'older' | 'newer';

export type PageQuery = {
	/** The key the page starts next to (not included); undefined: from the newest (older) or the oldest (newer). */
	after?: TimeKey;
	direction: PageDirection;
	/** At most this many events. */
	count: number;
	/** Only events it accepts (given without their steps). */
	match?: (event: StoredEvent) => boolean;
	/** Looks at most this many events (a search over a million stops and says where it got to). Default: no bound. */
	scanLimit?: number;
	/** Only events received at or after this time (ms); the read stops there. */
	sinceMs?: number;
	/** Only events received before this time (ms). */
	untilMs?: number;
};

export type PageEvent = {key: TimeKey; event: StoredEvent};

export type Page = {
	/** Newest first, whichever the direction. */
	events: PageEvent[];
	/** The read reached the end of the journal (in its direction) within the bounds. */
	end: boolean;
	/** With a scan limit: the last key looked at, to go on from. */
	lastKey?: TimeKey;
	/** Ids of the events in the range whose records are damaged (left out of `events`). */
	unreadable?: string[];
};

function sameKey(a: TimeKey | undefined, b: TimeKey): boolean {
	return a !== undefined && a[0] === b[0] && a[1] === b[1];
}

/** The range options of a page: reverse for older, bounded by the time window. */
function rangeOf(query: PageQuery): {reverse: boolean; start?: TimeKey; end?: TimeKey} {
	if (query.direction === 'older') {
		const start = query.after ?? (query.untilMs === undefined ? undefined : [query.untilMs, ''] as TimeKey);
		return {reverse: true, ...(start ? {start} : {}), ...(query.sinceMs === undefined ? {} : {end: [query.sinceMs, ''] as TimeKey})};
	}

	const start = query.after ?? (query.sinceMs === undefined ? undefined : [query.sinceMs, ''] as TimeKey);
	return {reverse: false, ...(start ? {start} : {}), ...(query.untilMs === undefined ? {} : {end: [query.untilMs, ''] as TimeKey})};
}

/**
 * One page of events next to `query.after`. Steps are read only for the events the page keeps, so
 * a page costs its own events and not the journal's size.
 */
export function readPage(stores: Stores, query: PageQuery): Page {
	const found: PageEvent[] = [];
	const scanLimit = query.scanLimit ?? Number.POSITIVE_INFINITY;
	let scanned = 0;
	let lastKey: TimeKey | undefined;
	let end = true;
	const unreadable: string[] = [];
	for (const read of eventsInRange(stores, rangeOf(query))) {
		const {key} = read;
		if (sameKey(query.after, key) || (query.untilMs !== undefined && key[0] >= query.untilMs)) {
			continue;
		}

		if (found.length >= query.count || scanned >= scanLimit) {
			end = false;
			break;
		}

		scanned++;
		lastKey = key;
		if ('damaged' in read) {
			// Left out of the page (it cannot be shown), named in it.
			unreadable.push(key[1]);
			continue;
		}

		const {record} = read;
		// Matched without its steps (nothing searched is in them); steps are read for a kept event only.
		if (!query.match || query.match(toStored(record, []))) {
			found.push({key, event: toStored(record, stepsOf(stores, record.id, record.generation))});
		}
	}

	if (query.direction === 'newer') {
		found.reverse();
	}

	return {events: found, end, ...(lastKey ? {lastKey} : {}), ...(unreadable.length > 0 ? {unreadable} : {})};
}

/** The key of the newest event, when there is one (the follower compares it to know of new events). */
export function newestKey(stores: Stores): TimeKey | undefined {
	for (const key of stores.events.getKeys({reverse: true, limit: 1})) {
		return key;
	}

	return undefined;
}

/** The mark below which every event's id is in `seen` (id-index.ts). */
function indexMark(stores: Stores): number {
	return stores.marks.get('unindexed-from') ?? 0;
}

/**
 * The stored ids starting with `prefix`, sorted, at most `limit`: a range read of `seen` from the
 * prefix, and the events not yet indexed. An id in `seen` whose event retention removed is left out.
 */
export function idsWithPrefix(stores: Stores, prefix: string, limit: number): string[] {
	const ids = new Set<string>();
	// Bounded by `limit`: an id in `seen` counts only while its event is still stored.
	for (const id of stores.seen.getKeys({start: prefix})) {
		if (!id.startsWith(prefix) || ids.size > limit) {
			break;
		}

		const ms = stores.seen.get(id);
		if (ms !== undefined && stores.events.doesExist([ms, id])) {
			ids.add(id);
		}
	}

	for (const key of stores.events.getKeys({start: [indexMark(stores), '']})) {
		if (key[1].startsWith(prefix)) {
			ids.add(key[1]);
		}
	}

	const stored = [...ids];
	return stored.sort().slice(0, limit);
}
