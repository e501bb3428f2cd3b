import {mask} from '../config/settings.js';
import type {ConfigStore} from '../config/store.js';
import {UserError} from '../errors.js';
import {keyProblem} from './current.js';

export type StoredKey = {
	masked: string;
	path: string;
	/** True when the key differs from the one stored before. */
	changed: boolean;
	/** True when PLATFORM_API_KEY is set and so overrides the stored key. */
	envOverride: boolean;
};

/**
 * Stores an API key given by the user (atomic write, mode 0600). A different key ends the
 * bookkeeping of the last rotation's overlap, which described the key being replaced; the time of
 * the last rotation is kept.
 */
export function storeApiKey(options: {key: string; store: ConfigStore; env: NodeJS.ProcessEnv}): StoredKey {
	const key = options.key.trim();
	const problem = keyProblem(key);
	if (problem) {
		throw new UserError(`No API key was stored: ${problem}; the stored key is unchanged`);
	}

	const {store} = options;
	const before = store.get('apiKey');
	const changed = before !== key;
	if (changed) {
		const {lastRotatedAt} = store.rotation();
		store.setMany({apiKey: key, rotation: lastRotatedAt ? {lastRotatedAt} : {}});
	}

	return {
		masked: mask(key),
		path: store.path,
		changed,
		envOverride: Boolean(options.env.PLATFORM_API_KEY?.trim()),
	};
}
