/**
 * The key-age policy (`keyMaxAge`, PLATFORM_KEY_MAX_AGE): its limit, and whether the API key in
 * use is past it. The CLI words the warning (cli/messages/key-age.ts) and prints it on stderr.
 */
import {SettingInvalidError, type ResolvedConfig} from '../config/resolve.js';
import {settingProblem, settingSpecs} from '../config/settings.js';
import type {StoredConfig} from '../config/store.js';
import {mask} from '../format/secret.js';
import {keyAge, keyMaxAgeMs} from './age.js';
import {currentApiKey} from './current.js';

/** The keyMaxAge policy in ms (flag-less: env > stored), undefined when unset; an unusable value is refused. */
export function policyMaxAgeMs(resolved: ResolvedConfig): number | undefined {
	const setting = resolved.keyMaxAge;
	if (!setting) {
		return undefined;
	}

	const expected = settingProblem('keyMaxAge', setting.value);
	if (expected) {
		throw new SettingInvalidError({name: 'keyMaxAge', source: setting.source, env: settingSpecs.keyMaxAge.env, value: setting.value, expected});
	}

	return keyMaxAgeMs(setting.value);
}

/** A key older than the policy allows: what the warning names. */
export type OverdueKey = {
	keyMasked: string;
	ageMs: number;
	/** How far past the policy's limit, ms. */
	overdueMs: number;
	/** Where the policy came from, and its value as written. */
	policy: {source: 'env' | 'stored'; value: string};
};

/** The key in use when it is older than the policy allows; undefined when young enough, its age unknown or no policy is set. */
export function overdueKey(options: {file: StoredConfig; resolved: ResolvedConfig; env: NodeJS.ProcessEnv; now: Date}): OverdueKey | undefined {
	const setting = options.resolved.keyMaxAge;
	const maxAgeMs = policyMaxAgeMs(options.resolved);
	if (!setting || maxAgeMs === undefined) {
		return undefined;
	}

	const age = keyAge({file: options.file, env: options.env, now: options.now});
	const current = currentApiKey({env: options.env, file: options.file});
	if (!age || !current || age.ageMs <= maxAgeMs) {
		return undefined;
	}

	return {keyMasked: mask(current.key), ageMs: age.ageMs, overdueMs: age.ageMs - maxAgeMs, policy: {source: setting.source === 'env' ? 'env' : 'stored', value: setting.value}};
}
