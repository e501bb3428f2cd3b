/**
 * What the command line says about the config: the settings typed as flags and the profile asked
 * for, each read from its one declaration (flags.ts) with the shared rule and checks, so a blank
 * `--base-url ""` or a `--profile` that is no name is refused with the flag's own sentence.
 */
import type {SettingName} from '../config/settings.js';
import type {CommandInput} from '../context.js';
import {readFlag, readFlags} from './flag-values.js';
import {connectionFlags, sharedFlags} from './flags.js';

/** The settings given as flags, by setting name (absent ones left out). */
export function settingFlagValues(flags: CommandInput['flags']): Partial<Record<SettingName, string>> {
	// The variables are the store's business (config/resolve.ts): only what was typed is read here.
	const values = readFlags(connectionFlags, {flags, env: {}});
	return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
}

/** The --profile flag's value when typed (PLATFORM_PROFILE and the file's choice are the store's: config/profiles.ts). */
export function profileFlagValue(flags: CommandInput['flags']): string | undefined {
	return readFlag(sharedFlags.profile, 'profile', {flags, env: {}}) as string | undefined;
}
