import type {RotationState, ConfigStore} from '../config/store.js';
import {mask} from '../format/secret.js';
import {errorMessage} from '../format/value.js';
import type {CallOptions, PlatformClient} from '../platform/client.js';
import {PlatformApiError, PlatformConnectionError, PlatformResponseError, PlatformTimeoutError} from '../platform/errors.js';
import type {KeyRotation} from '../platform/types.js';
import {currentApiKey, keyProblem, type KeySource} from './current.js';
import {KeyRotationError} from './errors.js';
import {parseIsoTimestamp} from './time.js';

export {KeyRotationError, type RotationFailureKind} from './errors.js';

/** What a rotation produced. `newKey` is the full key: the UI shows it masked unless told otherwise. */
export type RotationOutcome = {
	newKey: string;
	newKeyMasked: string;
	previousKeyMasked: string;
	previousKeySource: KeySource;
	/** When the previous key stops working, normalized ISO 8601 UTC; undefined when the answer had no valid expiry. */
	expiresAt: string | undefined;
	/** The raw `old_key_expires_at` when it was not a valid timestamp. */
	malformedExpiry?: unknown;
	rotatedAt: string;
	/** Whether the new key is the one in the config file now. When false, the UI must show `newKey` in full once. */
	stored: boolean;
	storeError?: string;
	/**
	 * The stored key changed while the platform was answering (a writer that ignored the lock):
	 * the new key was not written over it. Masked.
	 */
	conflictKeyMasked?: string;
	configPath: string;
	/** PLATFORM_API_KEY is set: it overrides the stored key and must be updated before `expiresAt`. */
	envOverride: boolean;
};

export type RotationEvent =
	| {type: 'rotating'; currentKeyMasked: string; source: KeySource; baseUrl: string}
	| {type: 'rotated'; newKeyMasked: string; expiresAt: string | undefined}
	| {type: 'stored'; newKeyMasked: string; path: string}
	| {type: 'store-failed'; error: string; path: string};

export type RotateOptions = {
	client: Pick<PlatformClient, 'rotateKey' | 'baseUrl'>;
	store: ConfigStore;
	env: NodeJS.ProcessEnv;
	now?: () => Date;
	onEvent?: (event: RotationEvent) => void;
	/** Extra options for the rotate call (timeout). No abort signal on purpose: see below. */
	call?: Omit<CallOptions, 'signal'>;
	/** How long to wait for another process's rotation (or write) to finish; default 45 s. */
	lockWaitMs?: number;
};

/** Turns a failure of POST /v2/keys/rotate into a KeyRotationError carrying what is known. */
export function rotationFailure(error: unknown, context: {baseUrl: string; currentKeyMasked: string; source: KeySource}): unknown {
	const base = {keyMasked: context.currentKeyMasked, source: context.source, baseUrl: context.baseUrl};
	if (error instanceof PlatformApiError) {
		const request = error.requestId ? {requestId: error.requestId} : {};
		const data = {...base, ...request, status: error.status, platformMessage: error.platformMessage};
		if (error.status === 401 || error.status === 403) {
			return new KeyRotationError({...data, kind: 'refused', maybeIssued: false}, `The platform refused the current key ${context.currentKeyMasked} with HTTP ${error.status}: ${error.platformMessage}; ${error.status === 401 ? 'it has expired or been revoked' : 'it may not rotate'}`, error);
		}

		// A 5xx may come after the platform issued the new key; only other answers prove it did not.
		const maybeIssued = error.status >= 500;
		return new KeyRotationError({...data, kind: 'platform', maybeIssued}, `The platform could not rotate the key: HTTP ${error.status}: ${error.platformMessage}${maybeIssued ? '; it may have issued a new key that was not received' : `. The key ${context.currentKeyMasked} is unchanged`}`, error);
	}

	if (error instanceof PlatformConnectionError || error instanceof PlatformTimeoutError) {
		const timeout = error instanceof PlatformTimeoutError ? {timeoutMs: error.timeoutMs} : {};
		const errno = error instanceof PlatformConnectionError && error.systemCode ? {errno: error.systemCode} : {};
		// Only a failure before sending proves the platform issued nothing.
		const refused = error instanceof PlatformConnectionError && error.refused;
		const what = error instanceof PlatformTimeoutError ? `no answer from ${context.baseUrl}` : `could not reach ${context.baseUrl}`;
		return new KeyRotationError(
			{...base, ...timeout, ...errno, kind: 'network', maybeIssued: !refused},
			`Key rotation failed: ${what}. ${refused ? `The key ${context.currentKeyMasked} is unchanged` : 'A new key may have been issued and not received'}`,
			error,
		);
	}

	if (error instanceof PlatformResponseError) {
		const request = error.requestId ? {requestId: error.requestId} : {};
		// The answer was not JSON, or its new_key is absent or not a string (the wire decoding says which).
		const detail = error.detail === 'the body is not JSON' ? 'not JSON' : error.detail;
		const requestPart = error.requestId ? ` (request id ${error.requestId})` : '';
		return new KeyRotationError({...base, ...request, kind: 'malformed', maybeIssued: true, detail}, `The platform's answer to POST /v2/keys/rotate is malformed (${detail})${requestPart}; no new key could be read, so the key ${context.currentKeyMasked} is unchanged`, error);
	}

	return error;
}

/** The issued key, checked against the key-format rules (the wire decoding made sure it is a string). */
function readNewKey(answer: KeyRotation, currentKeyMasked: string, base: {keyMasked: string; source: KeySource; baseUrl: string}): string {
	const newKey = answer.new_key.trim();
	const problem = keyProblem(newKey);
	if (problem) {
		const detail = `new_key: ${problem}`;
		throw new KeyRotationError({...base, kind: 'malformed', maybeIssued: true, detail}, `The platform's answer to POST /v2/keys/rotate is malformed (${detail}); no new key could be read, so the key ${currentKeyMasked} is unchanged`);
	}

	return newKey;
}

/**
 * Rotates the API key under the config file's lock: reads the current key, calls
 * POST /v2/keys/rotate with it, and stores `new_key` with the rotation state (one atomic write,
 * mode 0600) before anything is shown. Rotations in several processes therefore run one after
 * another, each rotating the key the one before stored.
 *
 * - The rotate call is never aborted once sent: an abort could lose a key the platform already
 *   issued. Its own timeout bounds it.
 * - An answer whose `new_key` is unusable throws a "malformed" KeyRotationError and stores nothing.
 * - An answer with a usable `new_key` but an invalid `old_key_expires_at` still stores the new key;
 *   the outcome carries `expiresAt: undefined` and `malformedExpiry`.
 * - `stored` is true only when the file holds the new key afterwards; otherwise the outcome
 *   carries the key in full (and why: `storeError` or `conflictKeyMasked`).
 */
export async function rotateApiKey(options: RotateOptions): Promise<RotationOutcome> {
	const {client, store, env} = options;
	const now = options.now ?? (() => new Date());
	const emit = options.onEvent ?? (() => undefined);
	return store.transaction(async transaction => {
		const current = currentApiKey({env, file: transaction.read()});
		if (!current) {
			throw new KeyRotationError({kind: 'no-key', maybeIssued: false}, 'No API key is set, so there is nothing to rotate');
		}

		const currentKeyMasked = mask(current.key);
		const base = {keyMasked: currentKeyMasked, source: current.source, baseUrl: client.baseUrl};
		emit({type: 'rotating', currentKeyMasked, source: current.source, baseUrl: client.baseUrl});
		let answer: KeyRotation;
		try {
			answer = await client.rotateKey(options.call ? {...options.call} : undefined);
		} catch (error) {
			throw rotationFailure(error, {baseUrl: client.baseUrl, currentKeyMasked, source: current.source});
		}

		const newKey = readNewKey(answer, currentKeyMasked, base);
		const rawExpiry = answer.old_key_expires_at;
		const expiry = parseIsoTimestamp(rawExpiry);
		const rotatedAt = now().toISOString();
		const rotation: RotationState = {previousKeyMasked: currentKeyMasked, lastRotatedAt: rotatedAt};
		if (expiry) {
			rotation.previousKeyExpiresAt = expiry.toISOString();
		}

		const newKeyMasked = mask(newKey);
		emit({type: 'rotated', newKeyMasked, expiresAt: rotation.previousKeyExpiresAt});
		const outcome: RotationOutcome = {
			newKey,
			newKeyMasked,
			previousKeyMasked: currentKeyMasked,
			previousKeySource: current.source,
			expiresAt: rotation.previousKeyExpiresAt,
			rotatedAt,
			stored: false,
			configPath: store.path,
			envOverride: current.source === 'env',
		};
		if (!expiry) {
			outcome.malformedExpiry = rawExpiry;
		}

		try {
			const storedNow = transaction.read().apiKey;
			if (current.source === 'stored' && storedNow !== current.key) {
				// Someone wrote the file without the lock meanwhile: do not overwrite their key blindly.
				outcome.conflictKeyMasked = mask(storedNow);
				throw new Error(`the stored key changed to ${outcome.conflictKeyMasked} while the platform was answering`);
			}

			await transaction.write({apiKey: newKey, rotation});
			if (transaction.read().apiKey !== newKey) {
				throw new Error('the file does not hold the new key after writing it');
			}

			outcome.stored = true;
			emit({type: 'stored', newKeyMasked, path: store.path});
		} catch (error) {
			outcome.storeError = errorMessage(error);
			emit({type: 'store-failed', error: outcome.storeError, path: store.path});
		}

		return outcome;
	}, {waitMs: options.lockWaitMs ?? 45_000});
}
