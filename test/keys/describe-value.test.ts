import {describe, expect, it} from 'vitest';
import {describeValue} from '../../source/format/describe.js';
import {malformedExpiryMessage} from '../../source/ui/keys/outcome-text.js';
import type {RotationOutcome} from '../../source/keys/rotate.js';

describe('describeValue (the words for an unexpected value in keys and config messages)', () => {
	it.each([
		[undefined, 'missing'],
		[null, 'null'],
		['', 'an empty string'],
		['tomorrow', '"tomorrow"'],
		[42, 'a number'],
		[true, 'a boolean'],
		[[], 'an empty list'],
		[[1, 2], 'a list'],
		[{at: 'tomorrow'}, 'an object'],
	])('words %j as %s', (value, words) => {
		expect(describeValue(value)).toBe(words);
	});

	it('escapes control characters and cuts a long string after 40 code points, never inside a surrogate pair', () => {
		expect(describeValue('line\nbreak\u001B[31m')).toBe(String.raw`"line\nbreak\u001b[31m"`);
		expect(describeValue('x'.repeat(41))).toBe(`"${'x'.repeat(40)}…"`);
		expect(describeValue('x'.repeat(40))).toBe(`"${'x'.repeat(40)}"`);
		// 30 emoji are 60 UTF-16 units but only 30 code points: nothing is cut.
		expect(describeValue('😀'.repeat(30))).toBe(`"${'😀'.repeat(30)}"`);
		expect(describeValue('😀'.repeat(41))).toBe(`"${'😀'.repeat(40)}…"`);
	});

	it('is the wording of an unusable expiry in a rotation\'s outcome', () => {
		const outcome = {newKeyMasked: '…NEW1', previousKeyMasked: '…OLD1', stored: true, malformedExpiry: ['2030-01-01']} as unknown as RotationOutcome;
		expect(malformedExpiryMessage(outcome)).toContain('old_key_expires_at is a list, not an ISO 8601 timestamp');
	});
});
