/**
 * How old the API key in use is, and when the key-age policy (`keyMaxAge`) wants it rotated. The
 * age is known for the stored key (the file records when `keys set` or a rotation put it there),
 * and for PLATFORM_API_KEY only when it holds that same key.
 */
import {storedRotation, storedSetting, type StoredConfig} from '../config/store.js';
import {parseDuration} from '../format/duration.js';
import {currentApiKey} from './current.js';
import {parseIsoTimestamp} from './time.js';

export type KeyAge = {
	/** When the key was set or rotated in, ISO 8601 UTC. */
	setAt: string;
	ageMs: number;
};

/**
 * When the stored key was set or rotated in. A file written before this was recorded falls back
 * to the last rotation, but only while the rotation state still describes that rotation (a key
 * set since then drops the previous key's record).
 */
export function storedKeySetAt(file: StoredConfig): Date | undefined {
	const rotation = storedRotation(file);
	const setAt = parseIsoTimestamp(rotation.keySetAt);
	if (setAt) {
		return setAt;
	}

	return rotation.previousKeyMasked ? parseIsoTimestamp(rotation.lastRotatedAt) : undefined;
}

/** The age of the key in use, when known (see the module comment). */
export function keyAge(options: {file: StoredConfig; env: NodeJS.ProcessEnv; now: Date}): KeyAge | undefined {
	const current = currentApiKey({env: options.env, file: options.file});
	if (!current || (current.source === 'env' && current.key !== storedSetting(options.file, 'apiKey'))) {
		return undefined;
	}

	const setAt = storedKeySetAt(options.file);
	return setAt ? {setAt: setAt.toISOString(), ageMs: Math.max(0, options.now.getTime() - setAt.getTime())} : undefined;
}

/** The `keyMaxAge` policy in ms; undefined when unset (a bad value is refused where settings are resolved). */
export function keyMaxAgeMs(value: string | undefined): number | undefined {
	return value === undefined ? undefined : parseDuration(value);
}

/** When the key is due for rotation under a maximum age, ISO 8601 UTC. */
export function rotationDueAt(age: KeyAge, maxAgeMs: number): string {
	return new Date(Date.parse(age.setAt) + maxAgeMs).toISOString();
}
