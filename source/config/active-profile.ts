import {readConfigFile, configFilePath} from './file.js';
import {selectProfile} from './profiles.js';

/**
 * The name of the profile a run uses: the --profile flag as typed (`flags.profile`), else
 * PLATFORM_PROFILE, else the config file's activeProfile (`config use`), else `default`. Never
 * throws: a config file that cannot be read counts as choosing none. For the profile an upload
 * records in its manifest; a run that has its store asks it instead (ConfigStore.profileName,
 * deps.profile), which reads the file once for both.
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

