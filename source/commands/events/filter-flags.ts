/** The event filters `events list` and `events replay` share: --status, --type, --since. */
import {eventStatuses, type EventStatus, type ListFilter} from '../../receiver/store/backend.js';
import type {FlagSpec} from '../../cli/types.js';
import {fullEventType, shortEventNames} from '../../receiver/event-names.js';
import {readFlags} from '../../cli/flag-values.js';

export type FilterOptions = {status?: EventStatus; type?: string; sinceMs?: number};

/** A short event name (user-message) or a full one (platform.…). */
function isEventType(type: string): boolean {
	return fullEventType(type) !== undefined || type.startsWith('platform.');
}

export const filterFlags = {
	status: {type: 'string', range: {kind: 'choice', choices: eventStatuses}, description: `Only events in this state (${eventStatuses.join(', ')})`, placeholder: 'STATUS'},
	type: {type: 'string', complete: Object.keys(shortEventNames), range: {kind: 'check', test: isEventType, rule: `${Object.keys(shortEventNames).join(' or ')}, or a full event name starting with platform.`, example: Object.keys(shortEventNames)[0] ?? 'user-message'}, description: 'Only events of this type: user-message, external-module-chosen, or a full event name (platform.…)', placeholder: 'TYPE'},
	since: {type: 'string', range: {kind: 'duration', min: 1000, max: 3650 * 24 * 3_600_000}, description: 'Only events received within this time (e.g. 30m, 1h, 7d)', placeholder: 'DURATION'},
} satisfies Record<string, FlagSpec>;

export function parseFilter(flags: Record<string, unknown>): FilterOptions {
	const {status, type, since: sinceMs} = readFlags(filterFlags, {flags, env: {}});
	return {...(status ? {status} : {}), ...(type ? {type} : {}), ...(sinceMs === undefined ? {} : {sinceMs})};
}

/** Whether any filter was given. */
export function hasFilter(filter: FilterOptions): boolean {
	return filter.status !== undefined || filter.type !== undefined || filter.sinceMs !== undefined;
}

/** The backend's filter, `since` counted back from `now`. */
export function listFilter(filter: FilterOptions, now: number): Omit<ListFilter, 'limit'> {
	return {
		...(filter.status ? {status: filter.status} : {}),
		...(filter.type ? {type: filter.type} : {}),
		...(filter.sinceMs === undefined ? {} : {sinceMs: now - filter.sinceMs}),
	};
}
