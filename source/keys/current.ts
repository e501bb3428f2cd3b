import {storedSetting, type ConfigStore, type StoredConfig} from '../config/store.js';

export type KeySource = 'env' | 'stored';

export type CurrentKey = {key: string; source: KeySource};

/**
 * The API key this tool uses right now: PLATFORM_API_KEY when set (it overrides the store),
 * otherwise the stored key, asked of `store` or taken from a `file` already read (under the lock,
 * say). The same precedence as the key supplier every command uses.
 */
export function currentApiKey(options: {env: NodeJS.ProcessEnv} & ({store: Pick<ConfigStore, 'get'>} | {file: StoredConfig})): CurrentKey | undefined {
	const fromEnv = options.env.PLATFORM_API_KEY?.trim();
	if (fromEnv) {
		return {key: fromEnv, source: 'env'};
	}

	const stored = 'file' in options ? storedSetting(options.file, 'apiKey') : options.store.get('apiKey');
	return stored ? {key: stored, source: 'stored'} : undefined;
}

/** The largest key accepted from a prompt, a pipe or the platform. */
export const maxKeyLength = 4096;

/**
 * Checks a key read from a prompt or stdin (already trimmed) and returns the problem, if any.
 * The key itself never appears in the message.
 */
export function keyProblem(key: string): string | undefined {
	if (key === '') {
		return 'the key is empty';
	}

	if (key.length > maxKeyLength) {
		return `the key is longer than ${maxKeyLength} characters`;
	}

	// eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
	if (/[\s\u0000-\u001F\u007F]/.test(key)) {
		return 'the key contains spaces, line breaks or control characters';
	}

	return undefined;
}
