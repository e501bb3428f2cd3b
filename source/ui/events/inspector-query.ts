/**
 * What the inspector shows of the journal (pure): the `/` search and the `f` filters, parsed from
 * what was typed, as one predicate over events and as the header line that names them.
 */
import {parseDuration, formatCompactDuration} from '../../format/duration.js';
import {eventStatuses, type EventStatus, type StoredEvent} from '../../receiver/store/backend.js';
import {bodyText} from '../../receiver/intake/body.js';
import {matchesFilter} from '../../receiver/store/list-filter.js';

export type InspectorFilter = {
	type?: string;
	status?: EventStatus;
	/** Received within this long before now (`since=1h`). */
	sinceMs?: number;
	/** Received at least this long before now (`until=30m`). */
	untilMs?: number;
};

export type Query = {search: string; filter: InspectorFilter};

export const emptyQuery: Query = {search: '', filter: {}};

/** The filter words `f` takes: `status=failed type=external-module-chosen since=1h until=10m`. */
export const filterHelp = 'status=STATUS type=TYPE since=DURATION until=DURATION (e.g. status=failed since=1h)';

/** Reads what was typed after `f`; an error names the word it could not read. */
export function parseFilterText(text: string): {filter: InspectorFilter} | {error: string} {
	const filter: InspectorFilter = {};
	for (const word of text.trim().split(/\s+/).filter(part => part !== '')) {
		const [name = '', value = ''] = word.split('=', 2);
		switch (name.toLowerCase()) {
			case 'status': {
				if (!eventStatuses.includes(value as EventStatus)) {
					return {error: `status must be one of ${eventStatuses.join(', ')}; got "${value}"`};
				}

				filter.status = value as EventStatus;
				break;
			}

			case 'type': {
				if (value === '') {
					return {error: 'type needs a value, e.g. type=external-module-chosen'};
				}

				filter.type = value;
				break;
			}

			case 'since':
			case 'until': {
				const ms = parseDuration(value);
				if (ms === undefined || ms <= 0) {
					return {error: `${name} must be a duration such as 30m, 1h or 7d; got "${value}"`};
				}

				filter[name === 'since' ? 'sinceMs' : 'untilMs'] = ms;
				break;
			}

			default: {
				return {error: `"${word}" is not a filter: ${filterHelp}`};
			}
		}
	}

	return {filter};
}

/** The filter as it is typed (so `f` starts from it). */
export function filterText(filter: InspectorFilter): string {
	return [
		filter.status ? `status=${filter.status}` : '',
		filter.type ? `type=${filter.type}` : '',
		filter.sinceMs === undefined ? '' : `since=${formatCompactDuration(filter.sinceMs).replaceAll(' ', '')}`,
		filter.untilMs === undefined ? '' : `until=${formatCompactDuration(filter.untilMs).replaceAll(' ', '')}`,
	].filter(part => part !== '').join(' ');
}

/** Whether a query shows every event (no search, no filter). */
export function isEmptyQuery(query: Query): boolean {
	return query.search === '' && filterText(query.filter) === '';
}

/** The time window of a query at `now`, ms since the epoch (the reads stop at its ends). */
export function timeWindow(filter: InspectorFilter, now: number): {sinceMs?: number; untilMs?: number} {
	return {
		...(filter.sinceMs === undefined ? {} : {sinceMs: now - filter.sinceMs}),
		...(filter.untilMs === undefined ? {} : {untilMs: now - filter.untilMs}),
	};
}

/**
 * The predicate of a query: the filters' type and status, and the search (case-insensitive) in the
 * type, id, chat id and body text. Undefined when it takes every event.
 */
export function queryMatcher(query: Query): ((event: StoredEvent) => boolean) | undefined {
	const needle = query.search.trim().toLowerCase();
	const {type, status} = query.filter;
	if (needle === '' && type === undefined && status === undefined) {
		return undefined;
	}

	const listFilter = {...(type === undefined ? {} : {type}), ...(status === undefined ? {} : {status})};
	return event => matchesFilter(event, listFilter) && (needle === ''
		|| event.id.toLowerCase().includes(needle)
		|| event.event.toLowerCase().includes(needle)
		|| (event.chatId?.toLowerCase().includes(needle) ?? false)
		|| bodyText(event).toLowerCase().includes(needle));
}

/** The header's account of the query: `search "refund" · status=failed since=1h`, or empty. */
export function queryText(query: Query): string {
	const parts = [query.search === '' ? '' : `search "${query.search}"`, filterText(query.filter)].filter(part => part !== '');
	return parts.join(' · ');
}
