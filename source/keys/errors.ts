/**
 * Errors of the keys domain. Each carries a code and data; the sentences a user reads are in
 * source/commands/messages/keys.ts. Messages here are for logs and debug output.
 */
import {CoreError} from '../core-error.js';
import type {KeySource} from './current.js';

export type RotationFailureKind = 'no-key' | 'refused' | 'network' | 'malformed' | 'platform' | 'new-key-refused' | 'env-file';

export type RotationErrorCode = 'key-missing' | 'rotation-refused' | 'rotation-failed' | 'rotation-unreachable' | 'rotation-malformed' | 'rotation-new-key-refused' | 'env-file-unwritable';

const codes: Record<RotationFailureKind, RotationErrorCode> = {
	'no-key': 'key-missing',
	refused: 'rotation-refused',
	platform: 'rotation-failed',
	network: 'rotation-unreachable',
	malformed: 'rotation-malformed',
	'new-key-refused': 'rotation-new-key-refused',
	'env-file': 'env-file-unwritable',
};

export type RotationErrorData = {
	kind: RotationFailureKind;
	/** The key the rotation was made with, masked, and where it came from. */
	keyMasked?: string;
	source?: KeySource;
	baseUrl?: string;
	status?: number;
	platformMessage?: string;
	requestId?: string;
	/** System error code of a network failure (ECONNREFUSED, …). */
	errno?: string;
	/** Set when no answer came within this time. */
	timeoutMs?: number;
	/**
	 * True when the platform may have issued a new key that never reached us (a 5xx answer, a
	 * connection lost after sending): the current key then works only until its overlap ends.
	 */
	maybeIssued: boolean;
	/** What was wrong with a malformed answer. */
	detail?: string;
	/** new-key-refused: the key the platform issued and then refused, masked. */
	newKeyMasked?: string;
	/** new-key-refused: when the kept key stops working, ISO 8601 UTC, when announced. */
	previousKeyExpiresAt?: string;
	/** env-file: the dotenv file named, and the path that stops it being written (the file, or its folder). */
	envFile?: string;
	blockedPath?: string;
};

/** A rotation that did not happen, or whose answer could not be used. Nothing was stored. */
export class KeyRotationError extends CoreError<RotationErrorCode, RotationErrorData> {
	readonly kind: RotationFailureKind;

	constructor(data: RotationErrorData, message: string, cause?: unknown) {
		super(codes[data.kind], data, message, {cause});
		this.kind = data.kind;
	}
}

/** A key given by the user (prompt or stdin) that cannot be a key; nothing was stored. */
export class KeyInvalidError extends CoreError<'key-invalid', {problem: string}> {
	constructor(problem: string) {
		super('key-invalid', {problem}, `No API key was stored: ${problem}; the stored key is unchanged`);
	}
}
