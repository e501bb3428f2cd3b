/**
 * The waiting events in /metrics and in the status words: how many wait, and the earliest next
 * attempt, read from the store when scraped.
 */
import {describe, expect, it} from 'vitest';
import {waitingRecord, waitingText} from '../../../source/cli/messages/health.js';
import type {WaitingSummary} from '../../../source/receiver/store/backend.js';
import {createServeMetrics} from '../../../source/receiver/ops/metrics.js';

describe('waiting events in /metrics and the status', () => {
	it('the gauges follow the store: the count and the earliest next attempt (0 when none waits)', async () => {
		let summary: WaitingSummary = {count: 2, nextAttemptAt: '2026-01-01T00:00:05.000Z'};
		const metrics = createServeMetrics({waiting: async () => Promise.resolve(summary)});
		const first = await metrics.text();
		expect(first).toMatch(/^platform_tui_waiting_events 2$/m);
		expect(first).toMatch(new RegExp(`^platform_tui_waiting_next_attempt_timestamp_seconds ${Date.parse('2026-01-01T00:00:05.000Z') / 1000}$`, 'm'));
		// A store with none waiting (another scrape source: reads are cached for 250 ms).
		summary = {count: 0};
		const none = createServeMetrics({waiting: async () => Promise.resolve(summary)});
		const second = await none.text();
		expect(second).toMatch(/^platform_tui_waiting_events 0$/m);
		expect(second).toMatch(/^platform_tui_waiting_next_attempt_timestamp_seconds 0$/m);
	});

	it('words the status and its NDJSON record', () => {
		const clock = (iso: string) => iso.slice(11, 19);
		expect(waitingText({count: 3, nextAttemptAt: '2026-01-01T12:00:05.000Z'}, clock)).toBe('3 events waiting, next attempt at 12:00:05');
		expect(waitingText({count: 1}, clock)).toBe('1 event waiting');
		expect(waitingText({count: 0}, clock)).toBe('no event waiting');
		expect(waitingRecord({count: 3, nextAttemptAt: '2026-01-01T12:00:05.000Z'})).toMatchObject({type: 'waiting', count: 3, nextAttemptAt: '2026-01-01T12:00:05.000Z'});
	});
});
