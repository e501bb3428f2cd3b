/**
 * `keys rotate` without a screen: progress on stderr, the result on stdout as one line or one JSON
 * record, then the warnings (the unsaved key in full, an unknown expiry, the env override); the
 * warnings are the screen's too.
 */
import {formatCompactDuration} from '../../format/duration.js';
import type {RotationEvent, RotationOutcome, RotationSkipped} from '../../keys/rotate.js';
import {envFileFailedMessage, envWarning, eventLine, expiryLine, malformedExpiryMessage, outcomeCode, skippedLine, unsavedKeyLines, unverifiedMessage} from '../../ui/keys/outcome-text.js';
import type {Deps} from '../../cli/deps.js';

/** The rotation as this run makes it (with --if-older-than it may be skipped). */
export type Rotate = (onEvent?: (event: RotationEvent) => void) => Promise<RotationOutcome | RotationSkipped>;

/** What follows the result on stderr: the unsaved key in full, an unknown expiry, the env override. */
export function writeWarnings(deps: Deps, outcome: RotationOutcome): void {
	const {stderr} = deps.context;
	if (!outcome.stored) {
		stderr.write(unsavedKeyLines(outcome).join('\n'));
	}

	if (!outcome.expiresAt) {
		stderr.write(`Error: ${malformedExpiryMessage(outcome)}.\n`);
	}

	if (outcome.envOverride) {
		stderr.write(`${envWarning(outcome)}\n`);
	}

	if (outcome.verifyError) {
		stderr.write(`Warning: ${unverifiedMessage(outcome)}.\n`);
	}

	if (outcome.envFileError) {
		stderr.write(`Error: ${envFileFailedMessage(outcome)}.\n`);
	}
}

/** `--if-older-than` found the key young enough: one line (or object), and the key-age policy's warning. */
function reportSkipped(deps: Deps, skipped: RotationSkipped): number {
	deps.output.print({
		type: 'rotation',
		rotated: false,
		key: skipped.keyMasked,
		source: skipped.source,
		keySetAt: skipped.setAt,
		ageSeconds: Math.floor(skipped.ageMs / 1000),
		olderThan: formatCompactDuration(skipped.olderThanMs),
	}, `${skippedLine(skipped)}\n`);

	// The key stays in use: the policy may still find it too old.
	deps.warnKeyAge();
	return 0;
}

/** Non-interactive: plain lines (or one JSON object) and no full key, except when storing failed. */
export async function runPlain(deps: Deps, rotate: Rotate): Promise<number> {
	const {context} = deps;
	const onAbort = () => {
		context.stderr.write('Waiting for the platform\'s answer so the new key is not lost; press Ctrl+C again to quit anyway.\n');
	};

	context.signal.throwIfAborted();
	context.signal.addEventListener('abort', onAbort, {once: true});
	let result: RotationOutcome | RotationSkipped;
	try {
		// Progress on stderr, the result on stdout: `keys rotate --yes > out` holds the result only.
		result = await rotate(event => {
			if (!deps.output.json) {
				context.stderr.write(`${eventLine(event)}\n`);
			}
		});
	} finally {
		context.signal.removeEventListener('abort', onAbort);
	}

	if (!result.rotated) {
		return reportSkipped(deps, result);
	}

	const outcome = result;
	const now = new Date(deps.clock.now());
	deps.output.print({
		type: 'rotation',
		rotated: true,
		key: outcome.newKeyMasked,
		previousKey: outcome.previousKeyMasked,
		expiresAt: outcome.expiresAt ?? null,
		overlapSeconds: outcome.expiresAt ? Math.max(0, Math.ceil((Date.parse(outcome.expiresAt) - now.getTime()) / 1000)) : null,
		rotatedAt: outcome.rotatedAt,
		stored: outcome.stored,
		path: outcome.configPath,
		envOverride: outcome.envOverride,
		verified: outcome.verified,
		...(outcome.envFile ? {envFile: outcome.envFile, envFileWritten: !outcome.envFileError} : {}),
	}, `${expiryLine(outcome, now)}\n`);

	writeWarnings(deps, outcome);
	return outcomeCode(outcome);
}
