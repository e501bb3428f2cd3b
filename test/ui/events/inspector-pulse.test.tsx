/**
 * The inspector's pulse: events per minute of the rows it read, at the right of its header; a
 * sparkline with colour, figures without; only minutes wholly read; 40 and 120 columns.
 */
import {describe, expect, it} from 'vitest';
import {displayWidth} from '../../../source/format/width.js';
import type {StoredEvent} from '../../../source/receiver/store/backend.js';
import {feedPulse, headerWithPulse, pulseBucketMs, pulseValues, startPulse} from '../../../source/ui/events/inspector-pulse.js';
import type {Row, Window} from '../../../source/ui/events/inspector-window.js';
import {stripAnsi, terminalOf} from '../ink-terminal.js';
import {cleanupsAfterEach} from '../../support/cleanups.js';
import {waitFor} from '../../support/wait.js';
import {storedEvent} from './memory-reader.js';
import {renderInspector} from './render-inspector.js';

const now = Date.parse('2025-03-01T14:05:30.000Z');
const minute = pulseBucketMs;
/** An event received `minutesAgo` minutes (and a few ms, by its number) before now. */
const eventAt = (index: number, minutesAgo: number): StoredEvent => ({...storedEvent(index), receivedAt: new Date(now - (minutesAgo * minute) - index).toISOString()});
const rowsOf = (events: StoredEvent[]): Row[] => events.map(event => ({key: [Date.parse(event.receivedAt), event.id], event}));
const windowOf = (rows: Row[], olderEnd: boolean): Window => ({rows, cursor: 0, top: 0, olderEnd, atNewest: true, skipped: 0});
/** Three events a minute ago, one two minutes ago, newest first. */
const events = [eventAt(0, 1), eventAt(1, 1), eventAt(2, 1), eventAt(3, 2)];

describe('counting the rows read', () => {
	it('counts each row once, by the minute it was received', () => {
		const scope = {};
		const rows = rowsOf(events);
		let pulse = feedPulse(startPulse(scope), windowOf(rows, true), scope);
		pulse = feedPulse(pulse, windowOf(rows, true), scope);
		const values = pulseValues(pulse, now);
		// Half an hour of whole minutes, the last the one before now's.
		expect(values).toHaveLength(30);
		expect(values.slice(-3)).toEqual([0, 1, 3]);
		expect(values.reduce((sum, value) => sum + value, 0)).toBe(4);
	});

	it('draws only the minutes wholly read while older rows are not read yet, and grows as they are', () => {
		const scope = {};
		const newest = feedPulse(startPulse(scope), windowOf(rowsOf(events.slice(0, 2)), false), scope);
		// The oldest row read is a minute old: its minute may hold more, so nothing whole is read yet.
		expect(pulseValues(newest, now).reduce((sum, value) => sum + value, 0)).toBe(0);
		const all = feedPulse(newest, windowOf(rowsOf(events), true), scope);
		expect(pulseValues(all, now).reduce((sum, value) => sum + value, 0)).toBe(4);
	});

	it('starts again for a new search, or after a gap in what was read', () => {
		const scope = {};
		const pulse = feedPulse(startPulse(scope), windowOf(rowsOf(events.slice(2)), true), scope);
		const other = {};
		expect(feedPulse(pulse, windowOf(rowsOf(events.slice(0, 1)), true), other).complete).toBe(true);
		expect(feedPulse(pulse, windowOf(rowsOf(events.slice(0, 1)), false), other).oldest?.[1]).toBe(events[0]?.id);
		const gap = feedPulse(pulse, windowOf(rowsOf(events.slice(0, 1)), false), scope);
		expect(gap.complete).toBe(false);
		expect(gap.oldest?.[1]).toBe(events[0]?.id);
	});

	it('puts the pulse at the right of the header, in the room the header leaves, within the width', () => {
		const values = [0, 2, 5, 1];
		const header = 'events · following · journal /home/someone/.local/share/platform-tui';
		const line = headerWithPulse(header, values, 120, true);
		expect(displayWidth(line)).toBe(120);
		expect(line).toMatch(/^events · following · journal \/home\/someone\/\.local\/share\/platform-tui\s{2,}events [▁▂▃▄▅▆▇█]+ 1\/min/);
		// What the header says (a search, a filter) never gives way: with no room, no pulse.
		expect(headerWithPulse(header, values, 40, true)).toBe(header);
		expect(headerWithPulse('events · following · search "question number 150"', values, 60, true)).toBe('events · following · search "question number 150"');

		expect(headerWithPulse('events · following', values, 60, false)).toMatch(/^events · following\s+events 1\/min \(peak 5\/min\)$/);
		expect(headerWithPulse('events · following', [], 60, true)).toBe('events · following');
	});
});

describe('the pulse on the inspector', () => {
	const cleanups = cleanupsAfterEach();

	function mount(columns: number, colour: boolean) {
		cleanups.push(terminalOf(columns));
		return renderInspector(colour, cleanups, events, () => now);
	}

	it('draws the events per minute in the header at 120 columns', async () => {
		const instance = mount(120, true);
		const frame = await waitFor(() => stripAnsi(instance.lastFrame() ?? ''), {until: text => text.includes('/min')});
		expect(frame.split('\n')[0] ?? '').toMatch(/ events [▁▂▃▄▅▆▇█]+ 3\/min/);
		for (const line of frame.split('\n')) {
			expect(displayWidth(line)).toBeLessThanOrEqual(120);
		}
	});

	it('leaves the header whole at 40 columns, where the pulse has no room', async () => {
		const instance = mount(40, true);
		const frame = await waitFor(() => stripAnsi(instance.lastFrame() ?? ''), {until: text => text.includes('evt_')});
		const header = frame.split('\n')[0] ?? '';
		expect(header).toMatch(/^events · /);
		expect(header).not.toContain('/min');
		for (const line of frame.split('\n')) {
			expect(displayWidth(line)).toBeLessThanOrEqual(40);
		}
	});

	it('says the figures without colour', async () => {
		const instance = mount(120, false);
		const frame = await waitFor(() => stripAnsi(instance.lastFrame() ?? ''), {until: text => text.includes('/min')});
		expect(frame.split('\n')[0]).toMatch(/ events 3\/min \(peak 3\/min\)$/);
	});
});
