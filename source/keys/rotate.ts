import type {ConfigStore, ConfigTransaction, RotationState} from '../config/store.js';
import {mask} from '../format/secret.js';
import {errorMessage} from '../format/value.js';
import type {CallOptions, PlatformClient} from '../platform/client.js';
import {PlatformApiError} from '../platform/errors.js';
import type {KeyRotation} from '../platform/types.js';
import {keyAge} from './age.js';
import {currentApiKey, type CurrentKey, type KeySource} from './current.js';
import {envFileProblem, writeEnvFileKey} from './env-file.js';
import {KeyRotationError} from './errors.js';
import {readNewKey, rotationFailure} from './rotate-answer.js';
import {parseIsoTimestamp} from './time.js';

export {KeyRotationError, type RotationFailureKind} from './errors.js';
export {rotationFailure} from './rotate-answer.js';

/** What a rotation produced. `newKey` is the full key: the UI shows it masked unless told otherwise. */
export type RotationOutcome = {
	rotated: true;
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
	/** The new key answered the check call (it is refused outright, and nothing stored, when the platform refuses it). */
	verified: boolean;
	/** Why the check call could not be made (network, platform trouble): the key is stored unchecked. */
	verifyError?: string;
	/** The dotenv file the new key was also written to, and why it could not be. */
	envFile?: string;
	envFileError?: string;
};

/** `--if-older-than` found the key young enough: nothing was called or changed. */
export type RotationSkipped = {
	rotated: false;
	keyMasked: string;
	source: KeySource;
	/** When the key was set or rotated in, ISO 8601 UTC. */
	setAt: string;
	ageMs: number;
	olderThanMs: number;
};

export type RotationEvent =
	| {type: 'due'; currentKeyMasked: string; ageMs?: number; olderThanMs: number}
	| {type: 'rotating'; currentKeyMasked: string; source: KeySource; baseUrl: string}
	| {type: 'rotated'; newKeyMasked: string; expiresAt: string | undefined}
	| {type: 'verified'; newKeyMasked: string}
	| {type: 'stored'; newKeyMasked: string; path: string}
	| {type: 'env-file'; newKeyMasked: string; path: string}
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
	/**
	 * One authenticated call made with the new key before it is stored. A refusal (HTTP 401/403)
	 * keeps the old key stored and throws; any other failure stores the key and says so.
	 */
	verify?: (newKey: string) => Promise<void>;
	/** A dotenv file that also gets `PLATFORM_API_KEY=<new key>`, under the same lock. */
	envFile?: string;
};

/** A refusal of the new key by the check call: the platform's answer, else undefined. */
function refusalOf(error: unknown): PlatformApiError | undefined {
	return error instanceof PlatformApiError && (error.status === 401 || error.status === 403) ? error : undefined;
}

/** Runs the check call with the new key; throws when the platform refuses it, else returns why it could not run. */
async function verifyNewKey(options: RotateOptions, context: {newKey: string; newKeyMasked: string; base: {keyMasked: string; source: KeySource; baseUrl: string}; expiresAt: string | undefined}): Promise<string | undefined> {
	if (!options.verify) {
		return 'no check call was configured';
	}

	try {
		await options.verify(context.newKey);
		return undefined;
	} catch (error) {
		const refusal = refusalOf(error);
		if (!refusal) {
			return errorMessage(error);
		}

		const request = refusal.requestId ? {requestId: refusal.requestId} : {};
		const expiry = context.expiresAt ? {previousKeyExpiresAt: context.expiresAt} : {};
		throw new KeyRotationError(
			{...context.base, ...request, ...expiry, kind: 'new-key-refused', maybeIssued: false, status: refusal.status, platformMessage: refusal.platformMessage, newKeyMasked: context.newKeyMasked},
			`The platform issued the new key ${context.newKeyMasked} but refused it with HTTP ${refusal.status}${refusal.requestId ? ` (request id ${refusal.requestId})` : ''}; the key ${context.base.keyMasked} is kept`,
			error,
		);
	}
}

/**
 * A dotenv file that cannot be written is refused before the platform is called: a key rotated
 * and then not written where the deployment reads it would be a step left for later by hand.
 */
async function checkEnvFile(envFile: string | undefined, base: {keyMasked: string; source: KeySource; baseUrl: string}): Promise<void> {
	const problem = envFile === undefined ? undefined : await envFileProblem(envFile);
	if (problem) {
		throw new KeyRotationError(
			{...base, kind: 'env-file', maybeIssued: false, envFile, blockedPath: problem.path, errno: problem.code},
			`The dotenv file ${envFile} cannot be written (${problem.code} on ${problem.path}); nothing was rotated`,
		);
	}
}

/** Writes the new key into the dotenv file, when one is named; returns why it could not be. */
async function writeEnvFile(options: RotateOptions, newKey: string, emit: (event: RotationEvent) => void): Promise<string | undefined> {
	if (!options.envFile) {
		return undefined;
	}

	try {
		await writeEnvFileKey(options.envFile, newKey);
		emit({type: 'env-file', newKeyMasked: mask(newKey), path: options.envFile});
		return undefined;
	} catch (error) {
		return errorMessage(error);
	}
}

/**
 * Stores the new key with the rotation state, unless the stored key changed without the lock
 * meanwhile; the outcome records either, and the event says it.
 */
async function storeNewKey(transaction: ConfigTransaction, held: {current: CurrentKey; rotation: RotationState; path: string}, outcome: RotationOutcome, emit: (event: RotationEvent) => void): Promise<void> {
	const {current, rotation, path} = held;
	try {
		const storedNow = transaction.read().apiKey;
		if (current.source === 'stored' && storedNow !== current.key) {
			// Someone wrote the file without the lock meanwhile: do not overwrite their key blindly.
			outcome.conflictKeyMasked = mask(storedNow);
			throw new Error(`the stored key changed to ${outcome.conflictKeyMasked} while the platform was answering`);
		}

		await transaction.write({apiKey: outcome.newKey, rotation});
		if (transaction.read().apiKey !== outcome.newKey) {
			throw new Error('the file does not hold the new key after writing it');
		}

		outcome.stored = true;
		emit({type: 'stored', newKeyMasked: outcome.newKeyMasked, path});
	} catch (error) {
		outcome.storeError = errorMessage(error);
		emit({type: 'store-failed', error: outcome.storeError, path});
	}
}

/** One rotation inside a transaction the caller holds: call, check the new key, store it. */
async function rotateHeld(transaction: ConfigTransaction, options: RotateOptions): Promise<RotationOutcome> {
	const {client, store, env} = options;
	const now = options.now ?? (() => new Date());
	const emit = options.onEvent ?? (() => undefined);
	const current = currentApiKey({env, file: transaction.read()});
	if (!current) {
		throw new KeyRotationError({kind: 'no-key', maybeIssued: false}, 'No API key is set, so there is nothing to rotate');
	}

	const currentKeyMasked = mask(current.key);
	const base = {keyMasked: currentKeyMasked, source: current.source, baseUrl: client.baseUrl};
	await checkEnvFile(options.envFile, base);
	emit({type: 'rotating', currentKeyMasked, source: current.source, baseUrl: client.baseUrl});
	let answer: KeyRotation;
	try {
		answer = await client.rotateKey(options.call ? {...options.call} : undefined);
	} catch (error) {
		throw rotationFailure(error, {baseUrl: client.baseUrl, currentKeyMasked, source: current.source});
	}

	const newKey = readNewKey(answer, base);
	const rawExpiry = answer.old_key_expires_at;
	const expiry = parseIsoTimestamp(rawExpiry);
	const newKeyMasked = mask(newKey);
	emit({type: 'rotated', newKeyMasked, expiresAt: expiry?.toISOString()});
	const verifyError = await verifyNewKey(options, {newKey, newKeyMasked, base, expiresAt: expiry?.toISOString()});
	if (!verifyError) {
		emit({type: 'verified', newKeyMasked});
	}

	const rotatedAt = now().toISOString();
	const rotation: RotationState = {previousKeyMasked: currentKeyMasked, lastRotatedAt: rotatedAt, keySetAt: rotatedAt};
	if (expiry) {
		rotation.previousKeyExpiresAt = expiry.toISOString();
	}

	const outcome: RotationOutcome = {
		rotated: true,
		newKey,
		newKeyMasked,
		previousKeyMasked: currentKeyMasked,
		previousKeySource: current.source,
		expiresAt: rotation.previousKeyExpiresAt,
		rotatedAt,
		stored: false,
		configPath: store.path,
		envOverride: current.source === 'env',
		verified: verifyError === undefined,
	};
	if (verifyError) {
		outcome.verifyError = verifyError;
	}

	if (!expiry) {
		outcome.malformedExpiry = rawExpiry;
	}

	await storeNewKey(transaction, {current, rotation, path: store.path}, outcome, emit);

	if (options.envFile) {
		outcome.envFile = options.envFile;
		const envFileError = await writeEnvFile(options, newKey, emit);
		if (envFileError) {
			outcome.envFileError = envFileError;
		}
	}

	return outcome;
}

/**
 * Rotates the API key under the config file's lock: reads the current key, calls
 * POST /v2/keys/rotate with it, checks the new key with one authenticated call (`verify`), and
 * stores `new_key` with the rotation state (one atomic write, mode 0600) before anything is shown,
 * then writes it into `envFile` when one is named. Rotations in several processes therefore run
 * one after another, each rotating the key the one before stored.
 *
 * - The rotate call is never aborted once sent: an abort could lose a key the platform already
 *   issued. Its own timeout bounds it.
 * - An answer whose `new_key` is unusable throws a "malformed" KeyRotationError and stores nothing.
 * - A new key the check call is refused with throws "new-key-refused" and stores nothing: the old
 *   key stays in use until its overlap ends.
 * - An answer with a usable `new_key` but an invalid `old_key_expires_at` still stores the new key;
 *   the outcome carries `expiresAt: undefined` and `malformedExpiry`.
 * - `stored` is true only when the file holds the new key afterwards; otherwise the outcome
 *   carries the key in full (and why: `storeError` or `conflictKeyMasked`).
 */
export async function rotateApiKey(options: RotateOptions): Promise<RotationOutcome> {
	return options.store.transaction(async transaction => rotateHeld(transaction, options), {waitMs: options.lockWaitMs ?? 45_000});
}

/**
 * Rotates only when the key in use is older than `olderThanMs` (or its age is not recorded),
 * deciding under the lock, so timers firing together rotate once. A young key: nothing is called
 * or changed, and the result says how old it is.
 */
export async function rotateApiKeyIfOlder(options: RotateOptions & {olderThanMs: number}): Promise<RotationOutcome | RotationSkipped> {
	const now = options.now ?? (() => new Date());
	return options.store.transaction(async transaction => {
		const file = transaction.read();
		const current = currentApiKey({env: options.env, file});
		const age = keyAge({file, env: options.env, now: now()});
		if (current && age && age.ageMs <= options.olderThanMs) {
			return {rotated: false, keyMasked: mask(current.key), source: current.source, setAt: age.setAt, ageMs: age.ageMs, olderThanMs: options.olderThanMs};
		}

		if (current) {
			options.onEvent?.({type: 'due', currentKeyMasked: mask(current.key), ...(age ? {ageMs: age.ageMs} : {}), olderThanMs: options.olderThanMs});
		}

		return rotateHeld(transaction, options);
	}, {waitMs: options.lockWaitMs ?? 45_000});
}
