/**
 * The key-age policy's warning: one line on stderr when the API key in use is older than
 * `keyMaxAge` (PLATFORM_KEY_MAX_AGE), naming the command that fixes it. Never on stdout, so it
 * stays out of `--json` output.
 */
import {SettingInvalidError, type ResolvedConfig} from '../config/resolve.js';
import {settingProblem, settingSpecs} from '../config/settings.js';
import type {StoredConfig} from '../config/store.js';
import {formatCompactDuration, formatCountdown} from '../format/duration.js';
import {mask} from '../format/secret.js';
import {keyAge, keyMaxAgeMs} from '../keys/age.js';
import {currentApiKey} from '../keys/current.js';

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

/** The warning line (no newline), or undefined when the key is young enough, its age unknown or no policy is set. */
export function keyAgeWarning(options: {file: StoredConfig; resolved: ResolvedConfig; env: NodeJS.ProcessEnv; now: Date}): string | undefined {
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

	const policy = setting.source === 'env' ? `PLATFORM_KEY_MAX_AGE (${setting.value})` : `keyMaxAge (${setting.value})`;
	return `Warning: the API key ${mask(current.key)} is ${formatCountdown(age.ageMs)} old, older than ${policy}, ${formatCompactDuration(age.ageMs - maxAgeMs)} past due; rotate it with \`platform-tui keys rotate\`.`;
}
