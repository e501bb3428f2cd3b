/**
 * The inspector's window onto the journal (pure, given a page reader): the rows loaded around the
 * cursor, newest first, never the whole journal. Moving the cursor past the loaded rows reads the
 * next page from the key it stopped at; past `maxRows`, the rows at the far end are let go and read
 * again when the cursor comes back. Following prepends what is newer than the first row.
 */
import type {StoredEvent} from '../../receiver/store/backend.js';

export type Key = [number, string];
export type Row = {key: Key; event: StoredEvent};
export type PageRead = {
	after?: Key;
	direction: 'older' | 'newer';
	count: number;
	match?: (event: StoredEvent) => boolean;
	scanLimit?: number;
	sinceMs?: number;
	untilMs?: number;
};
export type PageResult = {events: Row[]; end: boolean; lastKey?: Key};
/** Reads one page (the journal's `readPage`). */
export type Reader = (query: PageRead) => PageResult;

export type Scope = {match?: (event: StoredEvent) => boolean; sinceMs?: number; untilMs?: number};

export type Window = {
	rows: Row[];
	cursor: number;
	/** The first row shown. */
	top: number;
	/** Where the next older read starts (the last key looked at); undefined: the newest. */
	olderFrom?: Key;
	/** No older event matches. */
	olderEnd: boolean;
	/** No newer event than rows[0] was let go (the top of the list is loaded). */
	atNewest: boolean;
	/** Rows let go above rows[0] (newer than it), so the cursor's place in the whole list is known. */
	skipped: number;
};

/** Rows kept loaded at most. */
export const maxRows = 600;
/** Events one read looks at, at most: a search over a million goes on in steps, the screen drawn between. */
export const scanStep = 20_000;

function scoped(scope: Scope, query: PageRead): PageRead {
	return {...query, ...(scope.match ? {match: scope.match} : {}), ...(scope.sinceMs === undefined ? {} : {sinceMs: scope.sinceMs}), ...(scope.untilMs === undefined ? {} : {untilMs: scope.untilMs})};
}

/** The first page, from the newest event. */
export function openWindow(read: Reader, scope: Scope, count: number): Window {
	const page = read(scoped(scope, {direction: 'older', count, scanLimit: scanStep}));
	return {rows: page.events, cursor: 0, top: 0, ...(page.lastKey ? {olderFrom: page.lastKey} : {}), olderEnd: page.end, atNewest: true, skipped: 0};
}

/** Whether the rows below the cursor do not fill `view` and older ones may match (read more). */
export function wantsOlder(window: Window, view: number): boolean {
	return !window.olderEnd && window.rows.length < window.top + (2 * view);
}

/** Reads the next older page (one scan step) and lets go of rows past `maxRows` at the top. */
export function loadOlder(window: Window, read: Reader, scope: Scope, count: number): Window {
	if (window.olderEnd) {
		return window;
	}

	const after = window.olderFrom ?? window.rows.at(-1)?.key;
	const page = read(scoped(scope, {...(after ? {after} : {}), direction: 'older', count, scanLimit: scanStep}));
	let rows = [...window.rows, ...page.events];
	const drop = Math.max(0, Math.min(rows.length - maxRows, window.top));
	rows = rows.slice(drop);
	return {
		...window,
		rows,
		cursor: window.cursor - drop,
		top: window.top - drop,
		...(page.lastKey ? {olderFrom: page.lastKey} : {}),
		olderEnd: page.end,
		atNewest: window.atNewest && drop === 0,
		skipped: window.skipped + drop,
	};
}

/** Reads newer rows than the first one (following, or the cursor back at the top); keeps the cursor on its row unless it was at the top. */
export function loadNewer(window: Window, read: Reader, scope: Scope, count: number, stayAtTop: boolean): Window {
	const first = window.rows[0];
	if (!first) {
		return openWindow(read, scope, count);
	}

	const page = read(scoped(scope, {after: first.key, direction: 'newer', count, scanLimit: scanStep}));
	if (page.events.length === 0) {
		return page.end ? {...window, atNewest: true} : window;
	}

	const added = page.events.length;
	let rows = [...page.events, ...window.rows];
	const atTop = stayAtTop && window.cursor === 0 && window.atNewest;
	const cursor = atTop ? 0 : window.cursor + added;
	const top = atTop ? 0 : window.top + added;
	let {olderEnd, olderFrom} = window;
	if (rows.length > maxRows) {
		rows = rows.slice(0, Math.max(maxRows, cursor + 1));
		olderEnd = false;
		olderFrom = rows.at(-1)?.key;
	}

	// Rows read again above the first come out of those let go; past them, they are new events.
	const atNewest = page.end && window.atNewest ? true : page.end;
	return {...window, rows, cursor, top, olderEnd, ...(olderFrom ? {olderFrom} : {}), atNewest, skipped: atNewest ? 0 : Math.max(0, window.skipped - added)};
}

/** Keeps the cursor on screen: `top` moved so that the cursor's row is within `view` rows. */
export function scrolled(window: Window, view: number): Window {
	const top = Math.min(Math.max(window.top, window.cursor - view + 1), window.cursor);
	return top === window.top ? window : {...window, top: Math.max(0, top)};
}

/** Moves the cursor by `delta` rows (a page: the view's height), reading pages as it goes. */
export function moveCursor(window: Window, delta: number, view: number, read: Reader, scope: Scope): Window {
	let next = window;
	const target = next.cursor + delta;
	// Bounded: each read either adds rows or ends the journal in that direction.
	for (let reads = 0; target >= next.rows.length - 1 && !next.olderEnd && reads < 50; reads++) {
		next = loadOlder(next, read, scope, Math.max(view * 2, 50));
	}

	if (target < 0 && !next.atNewest) {
		next = loadNewer(next, read, scope, Math.max(view * 2, 50), false);
		return scrolled({...next, cursor: Math.max(0, next.cursor + delta)}, view);
	}

	const cursor = Math.max(0, Math.min(next.rows.length - 1, next.cursor + delta));
	return scrolled({...next, cursor}, view);
}

/** The cursor's place in the whole list (1 is the newest), not only among the rows loaded. */
export function cursorPosition(window: Window): number {
	return window.skipped + window.cursor + 1;
}

/** The row under the cursor. */
export function selectedRow(window: Window): Row | undefined {
	return window.rows[window.cursor];
}

/** Whether an event newer than the first row is stored (paused following counts them). */
export function newerCount(window: Window, read: Reader, scope: Scope, limit: number): number {
	const first = window.rows[0];
	return read(scoped(scope, {...(first ? {after: first.key} : {}), direction: 'newer', count: limit, scanLimit: scanStep})).events.length;
}
