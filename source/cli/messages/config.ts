/**
 * The sentences for the config domain's error codes (source/config/errors.ts): what failed, which
 * file or setting, and what to do next.
 */
import type {ConfigAccessData, ConfigDamagedData, ConfigLockedData, ProfileUnknownData, SettingInvalidData} from '../../config/errors.js';
import {defaultProfile, isProfileName, profileEnv} from '../../config/profiles.js';
import {settingSpecs, type SettingName} from '../../config/settings.js';
import {formatSeconds} from '../../format/duration.js';
import {closest} from '../suggest.js';
import type {ErrorWording as Message, MessageTable} from './types.js';


/** How a user stores a setting. */
export function howToStore(name: SettingName, value = '<value>'): string {
	if (name === 'apiKey') {
		return 'platform-tui keys set';
	}

	if (name === 'endpointSecret') {
		return 'platform-tui config set endpointSecret --stdin';
	}

	return `platform-tui config set ${name} ${value}`;
}

/** The file, and the profile being read when it is not `default` (the default one's wording is as it was before profiles). */
function fileOf(data: {file: string; profile?: string}): string {
	return data.profile === undefined || data.profile === defaultProfile ? data.file : `${data.file} (reading profile "${data.profile}")`;
}

const profileSources: Record<ProfileUnknownData['source'], string> = {
	flag: '--profile',
	env: profileEnv,
	stored: 'the config file\'s activeProfile',
	argument: 'config use',
};

function unknownProfile(data: ProfileUnknownData): Message {
	const suggestion = closest(data.profile, data.known);
	const mean = suggestion === undefined ? '' : ` Did you mean "${suggestion}"?`;
	// Only a name a profile can have is worth creating.
	const create = data.source === 'argument' || !isProfileName(data.profile) ? '' : `, or create it by storing a setting in it: \`platform-tui config set --profile ${data.profile} baseUrl <url>\``;
	return {
		message: `No profile "${data.profile}" (from ${profileSources[data.source]}) in the config file ${data.file}; its profiles are ${data.known.join(', ')}.${mean}`,
		next: `Run 'platform-tui config profiles' to list them${create}.`,
	};
}

const renameProfile: Record<ProfileUnknownData['source'], string> = {
	flag: 'Choose another name, e.g. --profile staging.',
	env: `Set ${profileEnv} to a profile's name, e.g. ${profileEnv}=staging, or unset it.`,
	stored: 'Choose the profile to use with `platform-tui config use NAME` (`platform-tui config profiles` lists them).',
	argument: 'Choose another name, e.g. staging.',
};

function invalidProfile(data: {profile: string; source: ProfileUnknownData['source']; rule: string}): Message {
	return {message: `${JSON.stringify(data.profile)} (from ${profileSources[data.source]}) cannot name a profile: it must be ${data.rule}.`, next: renameProfile[data.source]};
}

const repair = 'or start a fresh file with `platform-tui keys set --force` (it keeps the damaged file as a .bak copy beside it)';

function damaged(data: ConfigDamagedData): Message {
	switch (data.reason) {
		case 'empty': {
			return {message: `The config file ${fileOf(data)} is empty, so no setting could be read from it.`, next: `Restore it from a backup, delete it, ${repair}.`};
		}

		case 'syntax': {
			return {
				message: `The config file ${fileOf(data)} is not valid JSON: ${data.detail ?? 'a syntax error'} at line ${data.line ?? 1}, column ${data.column ?? 1}.`,
				next: `Fix that line in an editor, ${repair}.`,
			};
		}

		case 'not-an-object': {
			return {message: `The config file ${fileOf(data)} holds ${data.detail ?? 'something else'} instead of an object of settings.`, next: `Restore it from a backup, ${repair}.`};
		}

		case 'bad-field': {
			return {message: `The config file ${fileOf(data)} holds ${data.detail ?? 'a wrong value'} for "${data.field ?? '?'}", where text is expected.`, next: `Fix that value in an editor, ${repair}.`};
		}
	}
}

function access(data: ConfigAccessData): Message {
	const moveDir = 'or point PLATFORM_TUI_CONFIG_DIR at a folder you can write';
	switch (data.problem) {
		case 'not-a-directory': {
			return {message: `The config folder ${data.path} is a file, not a folder, so the settings file ${data.file} cannot be ${data.operation === 'read' ? 'read' : 'written'}.`, next: `Move that file away, ${moveDir}.`};
		}

		case 'is-a-directory': {
			return {message: `The config file ${data.file} is a folder, not a file.`, next: `Move that folder away, ${moveDir}.`};
		}

		case 'not-writable': {
			return {message: `Cannot write the settings to ${data.file}: ${data.path} is not writable (${data.errno ?? 'permission denied'}).`, next: `Give yourself write access (chmod u+w ${data.path}), ${moveDir}.`};
		}

		case 'not-readable': {
			return {message: `Cannot read the config file ${data.file} (${data.errno ?? 'permission denied'}).`, next: `Give yourself read access (chmod u+r ${data.file}), ${moveDir}.`};
		}

		case 'other': {
			return {message: `Cannot ${data.operation === 'create-folder' ? 'create the config folder' : `${data.operation} the config file`} ${data.path}: ${data.detail}.`};
		}
	}
}

function missing(data: {missing: SettingName[]; command: string}): Message {
	const lines = data.missing.map(name => {
		const spec = settingSpecs[name];
		const flag = spec.flag ? `, pass --${spec.flag}` : '';
		return `  ${name}: set ${spec.env}${flag} or run \`${howToStore(name)}\``;
	});
	const count = data.missing.length === 1 ? 'a setting that is' : `${data.missing.length} settings that are`;
	// The next step (init, or --local where the command has it) is added by error-message.ts.
	return {message: `${data.command} needs ${count} not set (${data.missing.join(', ')}):\n${lines.join('\n')}`};
}

/**
 * What a setting that can hold an unusable value (settingProblem) should hold instead: the kind of
 * value, shown with the setting's example, and what it means. Each such setting has its own, so the
 * advice on a bad key age is never the base URL's.
 */
export const settingAdvice: Partial<Record<SettingName, {kind: string; meaning: string}>> = {
	baseUrl: {kind: 'an address', meaning: 'the platform\'s address'},
	keyMaxAge: {kind: 'a duration', meaning: 'the age at which the API key is due for rotation'},
};

function invalid(data: SettingInvalidData): Message {
	const spec = settingSpecs[data.name];
	const flag = data.flag ?? spec.flag;
	const what = data.source === 'env'
		? data.env
		: data.source === 'flag' && flag ? `--${flag}` : `The stored ${data.name}`;
	const advice = settingAdvice[data.name];
	const store = howToStore(data.name, spec.example);
	const fix = data.source === 'stored' || data.source === 'default'
		? `store a good one with \`${store}\``
		: `set ${data.source === 'env' ? data.env : `--${flag ?? data.name}`} to ${advice?.meaning ?? data.expected}`;
	const use = advice === undefined ? '' : `Use ${advice.kind}${spec.example === undefined ? '' : ` such as ${spec.example}`}: `;
	return {
		message: `${what} is not ${data.expected}: ${JSON.stringify(data.value)}.`,
		next: use === '' ? `${fix[0]?.toUpperCase() ?? ''}${fix.slice(1)}.` : `${use}${fix}.`,
	};
}

export const configMessages: MessageTable = {
	'config-damaged': damaged,
	'config-access': access,
	'config-locked': (data: ConfigLockedData) => ({
		message: `Another platform-tui process kept the config file ${data.file} locked for ${formatSeconds(data.waitedMs)} (a key rotation holds it until the platform answers), so nothing was changed.`,
		next: `Try again in a moment; if no other platform-tui is running, remove the stale lock folder ${data.lockPath}.`,
	}),
	'settings-missing': missing,
	'setting-invalid': invalid,
	'profile-unknown': unknownProfile,
	'profile-invalid': invalidProfile,
};
