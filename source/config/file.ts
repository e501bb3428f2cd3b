/**
 * The config file on disk: where it is, reading it (a damaged file is reported with its line and
 * column, never silently replaced), and writing it through `conf`, the project's settings store
 * (atomic, mode 0600). Reads stay on the light reader here; `conf` (about 15 MiB of memory with
 * its schema validator) is loaded only by a write.
 */
import {chmodSync, readFileSync, renameSync} from 'node:fs';
import {basename, dirname, resolve} from 'node:path';
import {constants} from 'node:os';
import envPaths from 'env-paths';
import {describeValue} from '../format/describe.js';
import {makePrivateDir, privateFileMode} from '../private-files.js';
import {errorCode, errorMessage, isRecord} from '../format/value.js';
import {ConfigAccessError, ConfigDamagedError, type ConfigAccessData} from './errors.js';
import {settingNames} from './settings.js';

export const configFileMode = privateFileMode;

/**
 * `$PLATFORM_TUI_CONFIG_DIR/config.json`, else the platform's config folder (the same path the
 * `conf` package used before, so existing files are found).
 */
export function configFilePath(env: NodeJS.ProcessEnv): string {
	const directory = env.PLATFORM_TUI_CONFIG_DIR?.trim();
	return resolve(directory || envPaths('platform-tui', {suffix: ''}).config, 'config.json');
}

/** 1-based line and column of a character offset. */
export function lineColumn(text: string, offset: number): {line: number; column: number} {
	const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
	const lines = before.split('\n');
	return {line: lines.length, column: (lines.at(-1)?.length ?? 0) + 1};
}

function syntaxPosition(text: string, message: string): number {
	const position = /at position (\d+)/.exec(message)?.[1];
	return position === undefined ? text.length : Number(position);
}

/** Checks the fields of one profile's settings (the top level is the profile `default`). */
function checkSection(file: string, section: Record<string, unknown>, profile: string | undefined): void {
	const at = (field: string) => ({field: profile === undefined ? field : `profiles.${profile}.${field}`});
	for (const name of settingNames) {
		if (section[name] !== undefined && typeof section[name] !== 'string') {
			throw new ConfigDamagedError({file, reason: 'bad-field', ...at(name), detail: describeValue(section[name])});
		}
	}

	if (section.rotation !== undefined && !isRecord(section.rotation)) {
		throw new ConfigDamagedError({file, reason: 'bad-field', ...at('rotation'), detail: describeValue(section.rotation)});
	}
}

/** Parses the file's text; throws ConfigDamagedError naming the file and what is wrong. */
export function parseConfig(file: string, text: string): Record<string, unknown> {
	if (text.trim() === '') {
		throw new ConfigDamagedError({file, reason: 'empty'});
	}

	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch (error) {
		const detail = errorMessage(error).replace(/\s*(in JSON )?at position \d+.*$/s, '');
		throw new ConfigDamagedError({file, reason: 'syntax', ...lineColumn(text, syntaxPosition(text, errorMessage(error))), detail});
	}

	if (!isRecord(value)) {
		throw new ConfigDamagedError({file, reason: 'not-an-object', detail: describeValue(value)});
	}

	checkSection(file, value, undefined);
	if (value.activeProfile !== undefined && typeof value.activeProfile !== 'string') {
		throw new ConfigDamagedError({file, reason: 'bad-field', field: 'activeProfile', detail: describeValue(value.activeProfile)});
	}

	const profiles = value.profiles ?? {};
	if (!isRecord(profiles)) {
		throw new ConfigDamagedError({file, reason: 'bad-field', field: 'profiles', detail: describeValue(profiles)});
	}

	for (const [profile, section] of Object.entries(profiles)) {
		if (!isRecord(section)) {
			throw new ConfigDamagedError({file, reason: 'bad-field', field: `profiles.${profile}`, detail: describeValue(section)});
		}

		checkSection(file, section, profile);
	}

	return value;
}

function accessError(data: Omit<ConfigAccessData, 'problem' | 'errno' | 'detail'>, error: unknown): ConfigAccessError {
	const errno = errorCode(error);
	const problem: ConfigAccessData['problem'] = errno === 'ENOTDIR' || (errno === 'EEXIST' && data.operation === 'create-folder')
		? 'not-a-directory'
		: errno === 'EISDIR'
			? 'is-a-directory'
			: errno === 'EACCES' || errno === 'EPERM' || errno === 'EROFS'
				? (data.operation === 'read' ? 'not-readable' : 'not-writable')
				: 'other';
	return new ConfigAccessError({...data, problem, ...(errno ? {errno} : {}), detail: errorMessage(error)}, error);
}

/** Reads and parses the file; a missing file (or folder) is an empty config. */
export function readConfigFile(file: string): Record<string, unknown> {
	let text: string;
	try {
		text = readFileSync(file, 'utf8');
	} catch (error) {
		if (errorCode(error) === 'ENOENT') {
			return {};
		}

		// ENOTDIR: a file stands where a folder of the path should be.
		throw accessError({path: errorCode(error) === 'ENOTDIR' ? dirname(file) : file, file, operation: 'read'}, error);
	}

	return parseConfig(file, text);
}

/** Creates the file's folder (mode 0700) when missing; names the folder when that is impossible. */
export function ensureConfigDir(file: string): void {
	const directory = dirname(file);
	try {
		makePrivateDir(directory);
	} catch (error) {
		throw accessError({path: directory, file, operation: 'create-folder'}, error);
	}
}

/** Moves the file to `backup` (kept at mode 0600: it may hold the API key). */
export function moveConfigAside(file: string, backup: string): void {
	try {
		renameSync(file, backup);
		chmodSync(backup, configFileMode);
	} catch (error) {
		throw accessError({path: file, file, operation: 'write'}, error);
	}
}

/**
 * `conf`, without the signal hooks its atomic writes bring. On import, `atomically`'s `when-exit`
 * hooks every signal: on one it runs its clean-up and sends the same signal again. A Ctrl+C then
 * arrived twice, and the second ended the run at once (130) instead of through its designed ending
 * (`local --save-profile` exits 0 with its last line). The hooks on signals are taken back; the
 * clean-up (temporary files of writes under way) still runs on the process's `exit`.
 */
async function loadConf(): Promise<typeof import('conf')> {
	const signals = Object.keys(constants.signals) as NodeJS.Signals[];
	const before = new Map(signals.map(signal => [signal, new Set(process.listeners(signal))]));
	const loaded = await import('conf');
	for (const signal of signals) {
		for (const listener of process.listeners(signal)) {
			if (!before.get(signal)?.has(listener)) {
				process.removeListener(signal, listener);
			}
		}
	}

	return loaded;
}

/**
 * Writes the whole config with `conf`: a temporary file in the same folder created with mode 0600
 * and synced, then renamed over the file (a file loosened by hand is 0600 again afterwards). The
 * caller holds the lock and has read the file with `readConfigFile` first: `conf` reads the file
 * when made and would fail on a damaged one.
 */
export async function writeConfigFile(file: string, value: Record<string, unknown>): Promise<void> {
	const {default: Conf} = await loadConf();
	try {
		const conf = new Conf<Record<string, unknown>>({
			projectName: 'platform-tui',
			projectSuffix: '',
			cwd: dirname(file),
			configName: basename(file, '.json'),
			configFileMode,
			clearInvalidConfig: false,
		});
		conf.store = value;
	} catch (error) {
		throw accessError({path: errorCode(error) === 'EISDIR' ? file : dirname(file), file, operation: 'write'}, error);
	}
}
