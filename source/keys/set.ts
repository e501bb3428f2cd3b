import {storedRotation, storedSetting, type ConfigStore, type StoredConfig} from '../config/store.js';
import {mask} from '../format/secret.js';
import {keyProblem} from './current.js';
import {KeyInvalidError} from './errors.js';

export type StoredKey = {
	masked: string;
	path: string;
	/** True when the key differs from the one stored before. */
	changed: boolean;
	/** True when PLATFORM_API_KEY is set and so overrides the stored key. */
	envOverride: boolean;
	/** With `fresh`: where the file that was there before was moved. */
	backup?: string;
};

/**
 * Stores an API key given by the user (atomic write under the lock, mode 0600). A different key
 * ends the bookkeeping of the last rotation's overlap, which described the key being replaced; the
 * time of the last rotation is kept, and the time the key was set is recorded (its age counts from
 * there). A profile the file does not hold yet is created. With `fresh`, the present file (damaged, say) is moved to a
 * `.bak` beside it and a new file holding only the key is started.
 */
export async function storeApiKey(options: {key: string; store: ConfigStore; env: NodeJS.ProcessEnv; fresh?: boolean; now?: () => Date}): Promise<StoredKey> {
	const key = options.key.trim();
	const problem = keyProblem(key);
	if (problem) {
		throw new KeyInvalidError(problem);
	}

	const {store} = options;
	const keySetAt = (options.now ?? (() => new Date()))().toISOString();
	const envOverride = Boolean(options.env.PLATFORM_API_KEY?.trim());
	if (options.fresh) {
		const {backup} = await store.startFresh({apiKey: key, rotation: {keySetAt}});
		return {masked: mask(key), path: store.path, changed: true, envOverride, ...(backup ? {backup} : {})};
	}

	// Read, compare and write under the file's lock: a rotation in another process cannot land
	// between the check and the write and be overwritten (or make "unchanged" untrue).
	return store.transaction(async transaction => {
		const values = keyChange(transaction.read(), {apiKey: key}, keySetAt);
		if (values.rotation) {
			await transaction.write(values);
		}

		return {masked: mask(key), path: store.path, changed: values.rotation !== undefined, envOverride};
	}, undefined, {create: true});
}

/**
 * Stores a set of settings that holds an API key (the local platform's, say) in one write under
 * the lock, in the store's profile, which is created when the file does not hold it yet. A key
 * that differs from the stored one records when it was set, as `keys set` does.
 */
export async function storeSettingsWithKey(store: ConfigStore, values: Partial<StoredConfig>, now: Date = new Date()): Promise<void> {
	await store.transaction(async transaction => {
		await transaction.write(keyChange(transaction.read(), values, now.toISOString()));
	}, undefined, {create: true});
}

/**
 * The values to write when settings that may hold a new API key are stored over `file`: a key that
 * differs from the stored one comes with the rotation state of a key set by hand (when it was set,
 * the last rotation's time kept, the replaced key's overlap dropped); otherwise the values alone.
 */
export function keyChange(file: StoredConfig, values: Partial<StoredConfig>, keySetAt: string): Partial<StoredConfig> {
	if (values.apiKey === undefined || storedSetting(file, 'apiKey') === values.apiKey) {
		return values;
	}

	const {lastRotatedAt} = storedRotation(file);
	return {...values, rotation: lastRotatedAt ? {lastRotatedAt, keySetAt} : {keySetAt}};
}
