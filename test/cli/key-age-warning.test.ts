/** The key-age warning: how far past due is in the units of the key's age, never in milliseconds. */
import {describe, expect, it} from 'vitest';
import {keyAgeWarning} from '../../source/cli/messages/key-age.js';

describe('keyAgeWarning', () => {
	it('says how far past due to the second, as the age is said', () => {
		expect(keyAgeWarning({keyMasked: '…70x7', ageMs: 132_000, overdueMs: 74_818, policy: {source: 'env', value: '1m'}}))
			.toBe('Warning: the API key …70x7 is 2 min 12 s old, older than PLATFORM_KEY_MAX_AGE (1m), 1 min 15 s past due; rotate it with `platform-tui keys rotate`.');
	});

	it('in days and hours for an old key, naming the stored policy', () => {
		const day = 86_400_000;
		expect(keyAgeWarning({keyMasked: '…Q7mZ', ageMs: (95 * day) + (2 * 3_600_000), overdueMs: (5 * day) + (2 * 3_600_000), policy: {source: 'stored', value: '90d'}}))
			.toBe('Warning: the API key …Q7mZ is 95 d 2 h old, older than keyMaxAge (90d), 5 d 2 h past due; rotate it with `platform-tui keys rotate`.');
	});
});
