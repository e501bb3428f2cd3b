/**
 * Profiles: named sets of settings and keys in the one config file. The file keeps the shape it
 * always had: its top-level settings (and `rotation`) are the profile `default`, so a file written
 * before profiles existed is read unchanged and an older platform-tui still reads the default
 * profile of a newer file. Other profiles live under `profiles.<name>`, each with the same fields;
 * `activeProfile` names the one used when neither --profile nor PLATFORM_PROFILE says otherwise
 * (`config use`). Nothing is migrated: `profiles` appears with the second profile, `activeProfile`
 * with a switch away from `default`.
 */
import {isRecord} from '../format/value.js';
import {pickValue, type ValueSource} from './precedence.js';
import type {StoredConfig} from './settings.js';

export const defaultProfile = 'default';

/** The environment variable that selects a profile (the `--profile` flag's, cli/flags.ts). */
export const profileEnv = 'PLATFORM_PROFILE';

/** The top-level keys that belong to the file, not to the default profile. */
export const fileKeys = ['profiles', 'activeProfile'] as const;

const namePattern = /^[A-Za-z\d][\w.-]{0,63}$/;

export const profileNameRule = 'a profile name: a letter or digit, then letters, digits, ".", "_" or "-" (64 at most)';

export function isProfileName(name: string): boolean {
	return namePattern.test(name);
}

/** Which profile a run uses and why. */
export type ProfileSelection = {name: string; source: ValueSource};

/** The one rule: --profile > PLATFORM_PROFILE > the file's activeProfile > `default`. */
export function selectProfile(options: {flag?: string | undefined; env: NodeJS.ProcessEnv; file: Record<string, unknown>}): ProfileSelection {
	const picked = pickValue({flag: options.flag, env: options.env[profileEnv], stored: options.file.activeProfile, default: defaultProfile});
	const name = typeof picked?.value === 'string' ? picked.value.trim() : defaultProfile;
	return {name, source: picked?.source ?? 'default'};
}

function others(file: Record<string, unknown>): Record<string, unknown> {
	return isRecord(file.profiles) ? file.profiles : {};
}

/** Every profile of the file, `default` first (it always exists: it is the top level). */
export function profileNames(file: Record<string, unknown>): string[] {
	return [defaultProfile, ...Object.keys(others(file)).filter(name => name !== defaultProfile).sort()];
}

export function hasProfile(file: Record<string, unknown>, name: string): boolean {
	return profileNames(file).includes(name);
}

/** One profile's settings and rotation state, in the shape a file had before profiles; undefined when absent. */
export function profileSection(file: Record<string, unknown>, name: string): StoredConfig | undefined {
	if (name === defaultProfile) {
		return Object.fromEntries(Object.entries(file).filter(([key]) => !(fileKeys as readonly string[]).includes(key)));
	}

	const section = others(file)[name];
	return isRecord(section) ? section : undefined;
}

/** The file with one profile's section replaced by `section` (the rest kept as it is). */
export function withProfileSection(file: Record<string, unknown>, name: string, section: StoredConfig): Record<string, unknown> {
	if (name === defaultProfile) {
		const kept = Object.fromEntries(Object.entries(file).filter(([key]) => (fileKeys as readonly string[]).includes(key)));
		return {...section, ...kept};
	}

	return {...file, profiles: {...others(file), [name]: section}};
}

/** The file with `name` as the profile used by default; `default` leaves no trace, so the file keeps its old shape. */
export function withActiveProfile(file: Record<string, unknown>, name: string): Record<string, unknown> {
	const rest = Object.fromEntries(Object.entries(file).filter(([key]) => key !== 'activeProfile'));
	return name === defaultProfile ? rest : {...rest, activeProfile: name};
}
