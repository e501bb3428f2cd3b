/**
 * Errors of the config store and of setting resolution. Each carries a stable code and the data
 * the CLI layer needs to word it (source/commands/messages/config.ts); the messages here are for
 * logs and debug output only and name no command or flag.
 */
import {CoreError} from '../core-error.js';
import type {SettingName, SettingSource} from './settings.js';

/** What is wrong with the content of the config file. */
export type DamageReason = 'empty' | 'syntax' | 'not-an-object' | 'bad-field';

export type ConfigDamagedData = {
	file: string;
	reason: DamageReason;
	/** 1-based position of a syntax error, when known. */
	line?: number;
	column?: number;
	/** The field whose value has the wrong type (reason bad-field). */
	field?: string;
	/** The parser's own words (syntax) or what the field holds (bad-field). */
	detail?: string;
	/** The profile being read when the damage was met (profiles.ts). */
	profile?: string;
};

/** The config file exists but cannot be used as it is; nothing was changed. */
export class ConfigDamagedError extends CoreError<'config-damaged', ConfigDamagedData> {
	constructor(data: ConfigDamagedData) {
		const where = data.line === undefined ? '' : ` at line ${data.line}, column ${data.column ?? 1}`;
		const profile = data.profile === undefined ? '' : ` (profile ${data.profile})`;
		super('config-damaged', data, `The config file ${data.file}${profile} is damaged (${data.reason}${where}${data.detail ? `: ${data.detail}` : ''})`);
	}
}

/** The config file or its folder cannot be read, created or written. */
export type ConfigAccessData = {
	/** The path the problem is with (the folder or the file). */
	path: string;
	file: string;
	operation: 'read' | 'create-folder' | 'write';
	/** not-a-directory: a file stands where the folder should be; not-writable / not-readable: permissions. */
	problem: 'not-a-directory' | 'is-a-directory' | 'not-writable' | 'not-readable' | 'other';
	/** The system error code (EACCES, ENOTDIR, …). */
	errno?: string;
	detail: string;
};

export class ConfigAccessError extends CoreError<'config-access', ConfigAccessData> {
	constructor(data: ConfigAccessData, cause?: unknown) {
		super('config-access', data, `Cannot ${data.operation} ${data.path}: ${data.detail}`, {cause});
	}
}

/** Another process held the config file's lock for longer than this one would wait. */
export type ConfigLockedData = {file: string; lockPath: string; waitedMs: number};

export class ConfigLockedError extends CoreError<'config-locked', ConfigLockedData> {
	constructor(data: ConfigLockedData, cause?: unknown) {
		super('config-locked', data, `The config file ${data.file} stayed locked by another process for ${data.waitedMs} ms`, {cause});
	}
}

export type ProfileUnknownData = {
	profile: string;
	/** Where the name came from: the flag, PLATFORM_PROFILE, the file's activeProfile, or the argument of a switch. */
	source: 'flag' | 'env' | 'stored' | 'argument';
	/** Every profile the file holds, `default` first. */
	known: string[];
	file: string;
};

/** A profile was asked for that the config file does not hold; nothing was changed. */
export class ProfileUnknownError extends CoreError<'profile-unknown', ProfileUnknownData> {
	constructor(data: ProfileUnknownData) {
		super('profile-unknown', data, `The config file ${data.file} holds no profile ${JSON.stringify(data.profile)} (from ${data.source}); it holds ${data.known.join(', ')}`);
	}
}

/** A profile name that cannot be stored (PLATFORM_PROFILE="my profile"). */
export class ProfileInvalidError extends CoreError<'profile-invalid', {profile: string; source: ProfileUnknownData['source']; rule: string}> {
	constructor(data: {profile: string; source: ProfileUnknownData['source']; rule: string}) {
		super('profile-invalid', data, `${JSON.stringify(data.profile)} (from ${data.source}) is not ${data.rule}`);
	}
}

/** A command lacks settings it needs. The class name and `missing` are read by the CLI layer. */
export class MissingSettingsError extends CoreError<'settings-missing', {missing: SettingName[]; command: string}> {
	readonly missing: SettingName[];

	constructor(missing: SettingName[], command: string) {
		super('settings-missing', {missing, command}, `${command} needs ${missing.length === 1 ? 'a setting that is' : `${missing.length} settings that are`} not set (${missing.join(', ')})`);
		this.missing = missing;
	}
}

export type SettingInvalidData = {name: SettingName; source: SettingSource; env: string; flag?: string; value: string; expected: string};

/** A setting holds a value that cannot be used (PLATFORM_BASE_URL=not a url). */
export class SettingInvalidError extends CoreError<'setting-invalid', SettingInvalidData> {
	constructor(data: SettingInvalidData) {
		super('setting-invalid', data, `The setting ${data.name} (from ${data.source}) is not ${data.expected}: ${JSON.stringify(data.value)}`);
	}
}
