/**
 * The serve screen's keys (one list: its help overlay and docs/serve.md's table come from it), and
 * which of its selectable rows a search or filter keeps. The matching rule is the inspector's
 * (source/ui/events/inspector-query.ts), applied to the stored event each row names.
 */
import type {StoredEvent} from '../../receiver/store/backend.js';
import type {KeyHelp} from '../events/inspector-format.js';
import {queryMatcher, timeWindow, type Query} from '../events/inspector-query.js';
import type {LogRow} from './state.js';

/** Every key of the serve screen, in the order its help lists them. */
export const serveKeys: readonly KeyHelp[] = [
	{keys: '↑/↓', does: 'select a row (with a search or filter: the rows that match)', short: 'select'},
	{keys: 'Enter', does: 'show or hide the selected event\'s details', short: 'details'},
	{keys: '/', does: 'search type, id, chat id and body text of the rows', short: 'search'},
	{keys: 'f', does: 'filter the rows: status=STATUS type=TYPE since=1h until=10m', short: 'filter'},
	{keys: 'Esc', does: 'clear the selection, the search and the filter', short: 'clear'},
	{keys: 'r', does: 'replay the selected failed event', short: 'replay'},
	{keys: 'e', does: 'edit its body in $VISUAL/$EDITOR, store it as a new event and process it', short: 'edit and replay'},
	{keys: 'y', does: 'copy the selected event\'s id (OSC 52)', short: 'copy id'},
	{keys: 'p', does: 'pause / resume the log (finished rows are held while paused)', short: 'pause/resume'},
	{keys: '?', does: 'this help', short: 'help'},
	{keys: 'q, Ctrl+C', does: 'stop (drain the running jobs); twice: quit at once', short: 'quit'},
];

/**
 * The keys of the rows whose stored event matches the query (all rows when it is empty); a row
 * whose event is no longer stored does not match.
 */
export async function matchingRows(rows: readonly LogRow[], query: Query, read: (id: string) => Promise<StoredEvent | undefined>, now: number): Promise<Set<string>> {
	const match = queryMatcher(query);
	const {sinceMs, untilMs} = timeWindow(query.filter, now);
	const keys = new Set<string>();
	for (const row of rows) {
		if (!row.eventId) {
			continue;
		}

		if (!match && sinceMs === undefined && untilMs === undefined) {
			keys.add(row.key);
			continue;
		}

		const event = await read(row.eventId);
		const received = event ? Date.parse(event.receivedAt) : Number.NaN;
		if (event && (match?.(event) ?? true) && !(received < (sinceMs ?? -Infinity)) && !(received > (untilMs ?? Infinity))) {
			keys.add(row.key);
		}
	}

	return keys;
}
