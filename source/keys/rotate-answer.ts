/** The answer of POST /v2/keys/rotate read into a new key, and its failures as KeyRotationErrors. */
import {PlatformApiError, PlatformConnectionError, PlatformResponseError, PlatformTimeoutError} from '../platform/errors.js';
import type {KeyRotation} from '../platform/types.js';
import {keyProblem, type KeySource} from './current.js';
import {KeyRotationError} from './errors.js';

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
		// The answer was not JSON, or its new_key is absent or not a string (the wire decoding says which).
		return malformedAnswer(base, error.detail === 'the body is not JSON' ? 'not JSON' : error.detail, error.requestId, error);
	}

	return error;
}

/** The issued key, checked against the key-format rules (the wire decoding made sure it is a string). */
export function readNewKey(answer: KeyRotation, base: {keyMasked: string; source: KeySource; baseUrl: string}): string {
	const newKey = answer.new_key.trim();
	const problem = keyProblem(newKey);
	if (problem) {
		throw malformedAnswer(base, `new_key: ${problem}`);
	}

	return newKey;
}

/** An answer no new key could be read from: the current key (`base.keyMasked`) stays. */
function malformedAnswer(base: {keyMasked: string; source: KeySource; baseUrl: string}, detail: string, requestId?: string, cause?: unknown): KeyRotationError {
	const request = requestId ? {requestId} : {};
	const requestPart = requestId ? ` (request id ${requestId})` : '';
	return new KeyRotationError({...base, ...request, kind: 'malformed', maybeIssued: true, detail}, `The platform's answer to POST /v2/keys/rotate is malformed (${detail})${requestPart}; no new key could be read, so the key ${base.keyMasked} is unchanged`, cause);
}
