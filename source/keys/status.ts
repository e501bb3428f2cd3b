import {mask} from '../format/secret.js';
import {storedRotation, storedSetting, type ConfigStore} from '../config/store.js';
import {keyAge, rotationDueAt} from './age.js';
import {currentApiKey, type KeySource} from './current.js';
import {parseIsoTimestamp} from './time.js';

export type PreviousKeyStatus = {
	/** The replaced key, masked (`…last4`), when known. */
	masked?: string;
	/** When it stops (stopped) working, ISO 8601 UTC. */
	expiresAt: string;
	/** True while the previous key still works (the overlap is running). */
	valid: boolean;
	/** Time left in the overlap, ms; 0 once it ended. */
	remainingMs: number;
};

export type KeyStatus = {
	/** The key in use, masked; undefined when no key is set anywhere. */
	key?: {masked: string; source: KeySource};
	/** The stored key, masked, whenever one is stored (PLATFORM_API_KEY may override it). */
	storedKeyMasked?: string;
	configPath: string;
	lastRotatedAt?: string;
	previousKey?: PreviousKeyStatus;
	/**
	 * PLATFORM_API_KEY still holds the key a rotation replaced (its last four characters match):
	 * it stops working when the overlap ends.
	 */
	envHoldsPreviousKey: boolean;
	/** When the key in use was set or rotated in, and its age (known for the stored key only). */
	keySetAt?: string;
	ageMs?: number;
	/** The key-age policy (keyMaxAge), ms, when set. */
	maxAgeMs?: number;
	/** When the policy wants the key rotated (ISO 8601 UTC), when both the policy and the age are known. */
	rotationDueAt?: string;
};

/** Everything `keys show` reports. Never carries a full key. */
export function keyStatus(options: {env: NodeJS.ProcessEnv; store: Pick<ConfigStore, 'all' | 'path'>; now?: () => Date; maxAgeMs?: number}): KeyStatus {
	const {env, store} = options;
	const now = (options.now ?? (() => new Date()))();
	// One read of the file for the whole status, so its parts describe the same moment.
	const file = store.all();
	const stored = storedSetting(file, 'apiKey');
	const current = currentApiKey({env, file});
	const rotation = storedRotation(file);
	const {previousKeyMasked} = rotation;
	const status: KeyStatus = {configPath: store.path, envHoldsPreviousKey: false};
	if (current) {
		status.key = {masked: mask(current.key), source: current.source};
	}

	// The stored key whenever there is one, so `storedKey` never reads null beside `source: stored`.
	if (stored) {
		status.storedKeyMasked = mask(stored);
	}

	const age = keyAge({file, env, now});
	if (age) {
		status.keySetAt = age.setAt;
		status.ageMs = age.ageMs;
	}

	if (options.maxAgeMs !== undefined) {
		status.maxAgeMs = options.maxAgeMs;
		if (age) {
			status.rotationDueAt = rotationDueAt(age, options.maxAgeMs);
		}
	}

	if (parseIsoTimestamp(rotation.lastRotatedAt)) {
		status.lastRotatedAt = rotation.lastRotatedAt;
	}

	const expiry = parseIsoTimestamp(rotation.previousKeyExpiresAt);
	if (expiry) {
		const remainingMs = Math.max(0, expiry.getTime() - now.getTime());
		status.previousKey = {expiresAt: expiry.toISOString(), valid: remainingMs > 0, remainingMs};
		if (previousKeyMasked) {
			status.previousKey.masked = previousKeyMasked;
		}

		status.envHoldsPreviousKey = current?.source === 'env'
			&& previousKeyMasked !== undefined
			&& status.key?.masked === previousKeyMasked
			&& status.storedKeyMasked !== previousKeyMasked;
	}

	return status;
}
