import {readConfigFile, configFilePath} from './file.js';
import {defaultProfile, selectProfile} from './profiles.js';

/**
 * The name of the profile a run uses: the --profile flag as typed (`flags.profile`), else
 * PLATFORM_PROFILE, else the config file's activeProfile (`config use`), else `default`. Never
 * throws: a config file that cannot be read counts as choosing none. For the lines and columns
 * that name the profile (the --json result and error lines, status boxes); reading settings goes
 * through the ConfigStore, which refuses a profile the file does not hold.
 */
export function activeProfileName(input: {env: NodeJS.ProcessEnv; flags?: Record<string, unknown>}): string {
	const typed = input.flags?.profile;
	let file: Record<string, unknown> = {};
	try {
		file = readConfigFile(configFilePath(input.env));
	} catch {
		// A damaged or unreadable file chooses no profile; the command that reads it reports it.
	}

	return selectProfile({flag: typeof typed === 'string' && typed.trim() !== '' ? typed.trim() : undefined, env: input.env, file}).name;
}

/** `{profile}` when the run uses a profile other than `default`, else nothing: for the lines and boxes that name it. */
export function namedProfile(input: {env: NodeJS.ProcessEnv; flags?: Record<string, unknown>}): {profile?: string} {
	const name = activeProfileName(input);
	return name === defaultProfile ? {} : {profile: name};
}
