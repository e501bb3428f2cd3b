/**
 * The text of a rotation's progress and result, shared by the plain output and the lines printed
 * when the rotate screen ends. Pure functions. A full key only ever appears alone on its own line,
 * unindented, so a mouse copy takes exactly the key at any terminal width.
 */
import {describeValue} from '../../format/describe.js';
import {formatCompactDuration, formatCountdown} from '../../format/duration.js';
import type {RotationEvent, RotationOutcome, RotationSkipped} from '../../keys/rotate.js';
import {formatUtc, formatUtcAndLocal} from '../../keys/time.js';

/** One plain line per rotation event. */
export function eventLine(event: RotationEvent): string {
	switch (event.type) {
		case 'due': {
			return event.ageMs === undefined
				? `The age of the key ${event.currentKeyMasked} is not recorded (stored before ages were kept, or PLATFORM_API_KEY holds another key); rotating it`
				: `The key ${event.currentKeyMasked} is ${formatCountdown(event.ageMs)} old, older than ${formatCompactDuration(event.olderThanMs)}; rotating it`;
		}

		case 'rotating': {
			return `Rotating the API key ${event.currentKeyMasked} (${event.source === 'env' ? 'from PLATFORM_API_KEY' : 'stored'}) at ${event.baseUrl}`;
		}

		case 'rotated': {
			return `Rotated: the new key is ${event.newKeyMasked}`;
		}

		case 'verified': {
			return `Checked: the platform accepts the new key ${event.newKeyMasked}`;
		}

		case 'stored': {
			return `Stored the new key ${event.newKeyMasked} in ${event.path} (mode 0600)`;
		}

		case 'env-file': {
			return `Wrote PLATFORM_API_KEY=${event.newKeyMasked} into ${event.path} (mode 0600)`;
		}

		case 'store-failed': {
			return `Could not store the new key in ${event.path}: ${event.error}`;
		}
	}
}

export function expiryLine(outcome: RotationOutcome, now: Date): string {
	if (!outcome.expiresAt) {
		return `The previous key ${outcome.previousKeyMasked} has no announced expiry (the answer was malformed).`;
	}

	const expiry = new Date(outcome.expiresAt);
	const left = expiry.getTime() - now.getTime();
	const overlap = left > 0 ? `${formatCountdown(left)} from now` : 'already past: it no longer works';
	return `The previous key ${outcome.previousKeyMasked} keeps working until ${formatUtcAndLocal(expiry)}, ${overlap}.`;
}

export function envWarning(outcome: RotationOutcome): string {
	const when = outcome.expiresAt ? formatUtc(new Date(outcome.expiresAt)) : 'the previous key expires';
	return `Warning: PLATFORM_API_KEY is set in the environment and overrides the stored key; update it (and every deployment that sets it) to the new key ${outcome.newKeyMasked} before ${when}. The new key is in ${outcome.configPath} (field apiKey).`;
}

/** The sentence for an answer whose expiry was unusable (the new key was stored anyway). */
export function malformedExpiryMessage(outcome: RotationOutcome): string {
	return `The platform's answer to POST /v2/keys/rotate is malformed (old_key_expires_at is ${describeValue(outcome.malformedExpiry)}, not an ISO 8601 timestamp). The new key ${outcome.newKeyMasked} ${outcome.stored ? 'was stored anyway' : 'could not be stored either'}; the previous key ${outcome.previousKeyMasked} may stop working at any moment, so move every process that uses it to the new key now`;
}

/** The sentence for a rotation whose new key is not the stored one. */
export function storeFailedMessage(outcome: RotationOutcome): string {
	const why = outcome.conflictKeyMasked
		? `another writer changed the stored key to ${outcome.conflictKeyMasked} meanwhile, so it was not overwritten`
		: outcome.storeError ?? 'unknown error';
	return `The key was rotated but the new key ${outcome.newKeyMasked} was not saved to ${outcome.configPath} (${why}). Store it now with \`platform-tui keys set\`: the previous key ${outcome.previousKeyMasked} stops working ${outcome.expiresAt ? `at ${outcome.expiresAt}` : 'soon'}`;
}

/** The lines (for stderr) of a key that was not saved: the key alone on its own line. */
export function unsavedKeyLines(outcome: RotationOutcome): string[] {
	return [
		'',
		'!! THE NEW KEY WAS NOT SAVED. COPY IT NOW: IT IS SHOWN ONLY THIS ONCE. The next line is the key:',
		outcome.newKey,
		`${storeFailedMessage(outcome)}.`,
		'',
	];
}

/** The lines of a one-time reveal: a label, then the key alone on its own line. */
export function revealLines(outcome: RotationOutcome): string[] {
	return [`New key ${outcome.newKeyMasked} in full (shown this once; the next line is the key):`, outcome.newKey];
}

/** The summary printed when the rotate screen ends (ordinary output; the key masked). */
export function screenResultLines(outcome: RotationOutcome, now: Date): string[] {
	const stored = outcome.stored ? `stored in ${outcome.configPath} (mode 0600)` : 'NOT stored';
	return [`Rotated the API key ${outcome.previousKeyMasked} → ${outcome.newKeyMasked}, ${stored}.`, expiryLine(outcome, now)];
}

/** The one line of `--if-older-than` finding the key young enough. */
export function skippedLine(skipped: RotationSkipped): string {
	return `Not rotated: the key ${skipped.keyMasked} was set ${formatUtc(new Date(skipped.setAt))}, ${formatCountdown(skipped.ageMs)} ago, not older than ${formatCompactDuration(skipped.olderThanMs)}.`;
}

/** The sentence for a new key stored without its check call. */
export function unverifiedMessage(outcome: RotationOutcome): string {
	return `The new key ${outcome.newKeyMasked} is stored, but the call that checks it could not be made (${outcome.verifyError ?? 'unknown error'}); run a command that uses it (\`platform-tui upload\`, say) to see that it works before ${outcome.expiresAt ? formatUtc(new Date(outcome.expiresAt)) : 'the previous key expires'}`;
}

/** The sentence for a dotenv file that did not get the new key. */
export function envFileFailedMessage(outcome: RotationOutcome): string {
	return `The new key ${outcome.newKeyMasked} could not be written to ${outcome.envFile ?? 'the env file'} (${outcome.envFileError ?? 'unknown error'}); it is in ${outcome.configPath} (field apiKey): copy it into that file before ${outcome.expiresAt ? formatUtc(new Date(outcome.expiresAt)) : 'the previous key expires'}`;
}

/**
 * The exit code of a rotation that produced a key: 0 only when it is stored, checked, in the env
 * file when one was named, and the expiry is known.
 */
export function outcomeCode(outcome: RotationOutcome): number {
	return outcome.stored && outcome.expiresAt && outcome.verified && !outcome.envFileError ? 0 : 1;
}
