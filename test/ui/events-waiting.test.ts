/** A waiting event in `events list` (table and --json) and `events show`: its next attempt is named. */
import {describe, expect, it} from 'vitest';
import type {StoredEvent} from '../../source/receiver/store/backend.js';
import {eventSummary, formatEventDetail, formatEventTable, formatTime} from '../../source/ui/events/format.js';

const waiting: StoredEvent = {
	id: 'evt_wait',
	event: 'platform.chat.external-module.chosen',
	receivedAt: '2026-01-01T10:00:00.000Z',
	body: '{}',
	headers: {},
	chatId: 'chat_1',
	status: 'waiting',
	updatedAt: '2026-01-01T10:00:01.000Z',
	attempts: 2,
	error: 'POST /search failed with HTTP 503',
	nextAttemptAt: '2026-01-01T10:00:11.000Z',
	steps: [{name: 'waiting', at: '2026-01-01T10:00:01.000Z', data: {until: '2026-01-01T10:00:11.000Z', tries: 2, phase: 'answer'}, error: 'POST /search failed with HTTP 503'}],
};

describe('a waiting event in the events commands', () => {
	it('lists with its status and next attempt', () => {
		expect(eventSummary(waiting)).toMatchObject({status: 'waiting', nextAttemptAt: '2026-01-01T10:00:11.000Z', attempts: 2});
		const [row] = formatEventTable([waiting], undefined);
		expect(row?.split('\t')).toEqual([formatTime(waiting.receivedAt), 'evt_wait', 'external-module.chosen', 'waiting', 'chat_1', `next ${formatTime('2026-01-01T10:00:11.000Z')}`]);
	});

	it('shows its next attempt and why it waits', () => {
		const lines = formatEventDetail(waiting);
		expect(lines).toContain(`Next      ${formatTime('2026-01-01T10:00:11.000Z')} (the next attempt after a transient failure)`);
		expect(lines).toContain('Error     POST /search failed with HTTP 503');
	});
});
