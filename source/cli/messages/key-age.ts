/**
 * The key-age policy's warning: one line on stderr when the API key in use is older than
 * `keyMaxAge` (PLATFORM_KEY_MAX_AGE), naming the command that fixes it. Never on stdout, so it
 * stays out of `--json` output.
 */
import {formatCountdown} from '../../format/duration.js';
import type {OverdueKey} from '../../keys/age-policy.js';

/** The warning line (no newline); the age and how far past due in the same units, to the second at the finest. */
export function keyAgeWarning(overdue: OverdueKey): string {
	const policy = overdue.policy.source === 'env' ? `PLATFORM_KEY_MAX_AGE (${overdue.policy.value})` : `keyMaxAge (${overdue.policy.value})`;
	return `Warning: the API key ${overdue.keyMasked} is ${formatCountdown(overdue.ageMs)} old, older than ${policy}, ${formatCountdown(overdue.overdueMs)} past due; rotate it with \`platform-tui keys rotate\`.`;
}
