import {ConfigStore} from './store.js';
import {howToStore, settingNames, settingSpecs, type SettingName} from './settings.js';

export type SettingSource = 'flag' | 'env' | 'stored' | 'default';

export type ResolvedSetting = {value: string; source: SettingSource};

export type ResolvedConfig = Partial<Record<SettingName, ResolvedSetting>>;

export type ResolveInput = {
	flags?: Record<string, unknown>;
	env?: NodeJS.ProcessEnv;
	store?: ConfigStore;
};

/** Converts a kebab-case flag name to the camelCase key meow produces. */
function camel(flag: string): string {
	return flag.replace(/-([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}

/** Resolves every setting: flag > env > stored > default. */
export function resolveConfig(input: ResolveInput = {}): ResolvedConfig {
	const env = input.env ?? process.env;
	const store = input.store ?? new ConfigStore(env);
	const flags = input.flags ?? {};
	const resolved: ResolvedConfig = {};
	for (const name of settingNames) {
		const spec = settingSpecs[name];
		const flagValue = spec.flag ? flags[camel(spec.flag)] : undefined;
		const envValue = env[spec.env];
		const storedValue = store.get(name);
		if (typeof flagValue === 'string' && flagValue.trim() !== '') {
			resolved[name] = {value: flagValue.trim(), source: 'flag'};
		} else if (typeof envValue === 'string' && envValue.trim() !== '') {
			resolved[name] = {value: envValue.trim(), source: 'env'};
		} else if (storedValue !== undefined) {
			resolved[name] = {value: storedValue, source: 'stored'};
		} else if (spec.defaultValue !== undefined) {
			resolved[name] = {value: spec.defaultValue, source: 'default'};
		}
	}

	return resolved;
}

/** Raised when a command lacks settings it needs; the message names each one and how to set it. */
export class MissingSettingsError extends Error {
	override name = 'MissingSettingsError';
	readonly missing: SettingName[];

	constructor(missing: SettingName[], command: string) {
		const lines = missing.map(name => {
			const spec = settingSpecs[name];
			const flag = spec.flag ? `, pass --${spec.flag}` : '';
			return `  ${name}: set ${spec.env}${flag} or run \`${howToStore(name)}\``;
		});
		super(`${command} needs ${missing.length === 1 ? 'a setting that is' : `${missing.length} settings that are`} not set (${missing.join(', ')}):\n${lines.join('\n')}`);
		this.missing = missing;
	}
}

export type Settings<K extends SettingName> = Record<K, string> & Partial<Record<SettingName, string>>;

/** Returns the values of `required` (and any others that are set), or throws one error naming every missing one. */
export function requireSettings<K extends SettingName>(resolved: ResolvedConfig, required: readonly K[], command: string): Settings<K> {
	const missing = required.filter(name => resolved[name] === undefined);
	if (missing.length > 0) {
		throw new MissingSettingsError(missing, command);
	}

	const values: Partial<Record<SettingName, string>> = {};
	for (const name of settingNames) {
		const setting = resolved[name];
		if (setting) {
			values[name] = setting.value;
		}
	}

	return values as Settings<K>;
}

/**
 * The API key supplier for long-running work: PLATFORM_API_KEY when set in the environment
 * (it overrides the store), otherwise the stored key read afresh on every call, so a key rotated
 * by another process is used from the next request on.
 */
export function apiKeySupplier(options: {env?: NodeJS.ProcessEnv; store?: ConfigStore; fallback: string}): () => string {
	const env = options.env ?? process.env;
	const fromEnv = env.PLATFORM_API_KEY?.trim();
	if (fromEnv) {
		return () => fromEnv;
	}

	const store = options.store ?? new ConfigStore(env);
	return () => store.get('apiKey') ?? options.fallback;
}
