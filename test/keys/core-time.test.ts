import {describe, expect, it} from 'vitest';
import {formatCountdown as formatDuration} from '../../source/format/duration.js';
import {parseIsoTimestamp} from '../../source/keys/time.js';

describe('time helpers', () => {
	it('formats countdowns with two units at most', () => {
		expect(formatDuration(0)).toBe('0 s');
		expect(formatDuration(1)).toBe('1 s');
		expect(formatDuration(45_000)).toBe('45 s');
		expect(formatDuration(750_000)).toBe('12 min 30 s');
		expect(formatDuration(((4 * 60) + 5) * 60_000)).toBe('4 h 05 min');
		expect(formatDuration(((51 * 60) + 5) * 60_000)).toBe('2 d 3 h');
		expect(formatDuration(-5)).toBe('0 s');
	});

	it('parses ISO 8601 timestamps, reading a missing zone as UTC, and rejects anything else', () => {
		expect(parseIsoTimestamp('2030-01-01T12:00:00Z')?.toISOString()).toBe('2030-01-01T12:00:00.000Z');
		expect(parseIsoTimestamp('2030-01-01T12:00:00.123456+02:00')?.toISOString()).toBe('2030-01-01T10:00:00.123Z');
		expect(parseIsoTimestamp('2030-01-01T12:00:00')?.toISOString()).toBe('2030-01-01T12:00:00.000Z');
		for (const bad of ['tomorrow', '', '2030-02-30T00:00:00Z', '2030-13-01T00:00:00Z', '1700000000', 1_700_000_000, null, undefined, {}]) {
			expect(parseIsoTimestamp(bad)).toBeUndefined();
		}
	});
});
