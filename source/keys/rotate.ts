import {mask} from '../config/settings.js';
import type {ConfigStore, RotationState} from '../config/store.js';
import {UserError} from '../errors.js';
import type {CallOptions, PlatformClient} from '../platform/client.js';
import {PlatformApiError, PlatformConnectionError, PlatformResponseError, PlatformTimeoutError} from '../platform/errors.js';
import {currentApiKey, keyProblem, type KeySource} from './current.js';
import {parseIsoTimestamp} from './time.js';

export type RotationFailureKind = 'no-key' | 'refused' | 'network' | 'malformed' | 'platform';

/** A rotation that did not happen (or whose answer could not be used); the message is the sentence to show. */
export class KeyRotationError extends UserError {
	override name = 'KeyRotationError';
	readonly kind: RotationFailureKind;

	constructor(kind: RotationFailureKind, message: string, cause?: unknown) {
		super(message, cause === undefined ? undefined : {cause});
		this.kind = kind;
	}
}

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
	/** Whether the new key is in the config file. When false, the UI must show `newKey` in full once. */
	stored: boolean;
	storeError?: string;
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
};

function describeValue(value: unknown): string {
	if (value === undefined) {
		return 'missing';
	}

	if (typeof value === 'string') {
		return value === '' ? 'an empty string' : `"${value.length > 40 ? `${value.slice(0, 40)}…` : value}"`;
	}

	return value === null ? 'null' : `a ${typeof value}`;
}

/** Turns a failure of POST /v2/keys/rotate into one clear sentence saying what to do. */
export function rotationFailure(error: unknown, context: {baseUrl: string; currentKeyMasked: string; source: KeySource}): unknown {
	const where = context.source === 'env' ? 'PLATFORM_API_KEY' : 'the stored key';
	if (error instanceof PlatformApiError) {
		const request = error.requestId ? ` (request id ${error.requestId})` : '';
		if (error.status === 401) {
			return new KeyRotationError('refused', `The platform refused the current key ${context.currentKeyMasked} (${where}) with HTTP 401${request}: it has expired or been revoked, so it cannot rotate itself. Get a new key from the platform's admin console, store it with \`platform-tui keys set\`${context.source === 'env' ? ' (and update PLATFORM_API_KEY)' : ''}, then rotate again if needed`, error);
		}

		if (error.status === 403) {
			return new KeyRotationError('refused', `The platform does not allow the current key ${context.currentKeyMasked} to rotate (HTTP 403: ${error.platformMessage})${request}; check that the key and app id belong together. The key is unchanged`, error);
		}

		return new KeyRotationError('platform', `The platform could not rotate the key: HTTP ${error.status}: ${error.platformMessage}${request}. The key ${context.currentKeyMasked} is unchanged; try again shortly`, error);
	}

	if (error instanceof PlatformConnectionError || error instanceof PlatformTimeoutError) {
		const what = error instanceof PlatformTimeoutError
			? `no answer from ${context.baseUrl} in ${(error.timeoutMs / 1000).toFixed(0)} s`
			: `could not reach ${context.baseUrl}${error.code ? ` (${error.code})` : ''}`;
		const refused = error instanceof PlatformConnectionError && (error.code === 'ECONNREFUSED' || error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN' || error.code === 'UND_ERR_CONNECT_TIMEOUT');
		const maybeLost = refused
			? ''
			: ' If the request reached the platform, a new key may have been issued and lost; the current key still works during its overlap, so rotating again now is safe.';
		return new KeyRotationError('network', `Key rotation failed: ${what}. The key ${context.currentKeyMasked} is unchanged; check --base-url / PLATFORM_BASE_URL and the network, then try again.${maybeLost}`, error);
	}

	if (error instanceof PlatformResponseError) {
		return new KeyRotationError('malformed', `The platform's answer to POST /v2/keys/rotate is malformed (not JSON)${error.requestId ? ` (request id ${error.requestId})` : ''}; no new key could be read, so the key ${context.currentKeyMasked} is unchanged. Report this to the platform operator`, error);
	}

	return error;
}

/**
 * Rotates the API key: POST /v2/keys/rotate with the current key, then stores `new_key` together
 * with the rotation state (one atomic write, mode 0600) before anything is shown.
 *
 * - The rotate call is never aborted once sent: an abort could lose a key the platform already
 *   issued. Its own timeout bounds it.
 * - An answer whose `new_key` is unusable throws a "malformed" KeyRotationError and stores nothing.
 * - An answer with a usable `new_key` but an invalid `old_key_expires_at` still stores the new key
 *   (the platform has issued it, and the old key will expire at an unknown time); the outcome
 *   carries `expiresAt: undefined` and `malformedExpiry` so the UI reports it and exits 1.
 * - When storing fails, the outcome says so (`stored: false`) and carries the key in full.
 */
export async function rotateApiKey(options: RotateOptions): Promise<RotationOutcome> {
	const {client, store, env} = options;
	const now = options.now ?? (() => new Date());
	const emit = options.onEvent ?? (() => undefined);
	const current = currentApiKey({env, store});
	if (!current) {
		throw new KeyRotationError('no-key', 'No API key is set, so there is nothing to rotate; store one with `platform-tui keys set` or set PLATFORM_API_KEY');
	}

	const currentKeyMasked = mask(current.key);
	emit({type: 'rotating', currentKeyMasked, source: current.source, baseUrl: client.baseUrl});
	let answer: unknown;
	try {
		answer = await client.rotateKey(options.call ? {...options.call} : undefined);
	} catch (error) {
		throw rotationFailure(error, {baseUrl: client.baseUrl, currentKeyMasked, source: current.source});
	}

	const record = answer && typeof answer === 'object' && !Array.isArray(answer) ? answer as Record<string, unknown> : undefined;
	const rawKey = record?.new_key;
	const newKey = typeof rawKey === 'string' ? rawKey.trim() : '';
	const problem = typeof rawKey === 'string' ? keyProblem(newKey) : `new_key is ${describeValue(rawKey)}`;
	if (!record || problem) {
		throw new KeyRotationError('malformed', `The platform's answer to POST /v2/keys/rotate is malformed (${record ? (typeof rawKey === 'string' ? `new_key: ${problem}` : problem) : 'not a JSON object'}); no new key could be read, so the key ${currentKeyMasked} is unchanged. Report this to the platform operator`);
	}

	const rawExpiry = record.old_key_expires_at;
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
		envOverride: Boolean(env.PLATFORM_API_KEY?.trim()),
	};
	if (!expiry) {
		outcome.malformedExpiry = rawExpiry;
	}

	try {
		store.setMany({apiKey: newKey, rotation});
		if (store.get('apiKey') !== newKey) {
			throw new Error('the file does not hold the new key after writing it');
		}

		outcome.stored = true;
		emit({type: 'stored', newKeyMasked, path: store.path});
	} catch (error) {
		outcome.storeError = error instanceof Error ? error.message : String(error);
		emit({type: 'store-failed', error: outcome.storeError, path: store.path});
	}

	return outcome;
}

/** The sentence for an answer whose expiry was unusable (the new key was stored anyway). */
export function malformedExpiryMessage(outcome: RotationOutcome): string {
	return `The platform's answer to POST /v2/keys/rotate is malformed (old_key_expires_at is ${describeValue(outcome.malformedExpiry)}, not an ISO 8601 timestamp). The new key ${outcome.newKeyMasked} ${outcome.stored ? 'was stored anyway' : 'could not be stored either'}; the previous key ${outcome.previousKeyMasked} may stop working at any moment, so move every process that uses it to the new key now`;
}

/** The sentence for a rotation whose new key could not be stored. */
export function storeFailedMessage(outcome: RotationOutcome): string {
	return `The key was rotated but the new key ${outcome.newKeyMasked} could not be saved to ${outcome.configPath} (${outcome.storeError ?? 'unknown error'}). Store it now with \`platform-tui keys set\`: the previous key ${outcome.previousKeyMasked} stops working ${outcome.expiresAt ? `at ${outcome.expiresAt}` : 'soon'}`;
}
