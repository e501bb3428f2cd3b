/** The one rule for `events list` filters, used by every backend that filters its events itself. */
import type {ListFilter, StoredEvent} from './backend.js';
import {fullEventType} from '../event-names.js';

/**
 * Whether an event type matches a filter type: the exact type, a name `trigger` uses
 * (`user-message`), or the form without `platform.chat.`.
 */
export function matchesType(eventType: string, filterType: string): boolean {
	return eventType === (fullEventType(filterType) ?? filterType) || eventType === `platform.chat.${filterType}`;
}

/** Whether an event passes a list filter's status, type and since (the limit is the caller's). */
export function matchesFilter(event: Pick<StoredEvent, 'status' | 'event' | 'receivedAt'>, filter: ListFilter): boolean {
	if (filter.status && event.status !== filter.status) {
		return false;
	}

	if (filter.type !== undefined && !matchesType(event.event, filter.type)) {
		return false;
	}

	return filter.sinceMs === undefined || Date.parse(event.receivedAt) >= filter.sinceMs;
}
