import {MissingSettingsError, SettingInvalidError} from './errors.js';
import {pickValue} from './precedence.js';
import {ConfigStore, storedSetting} from './store.js';
import {settingNames, settingProblem, settingSpecs, type SettingName, type SettingSource} from './settings.js';

export {MissingSettingsError, SettingInvalidError} from './errors.js';
export type {SettingSource} from './settings.js';

export type ResolvedSetting = {value: string; source: SettingSource};

export type ResolvedConfig = Partial<Record<SettingName, ResolvedSetting>>;

export type ResolveInput = {
	/**
	 * The settings typed on the command line, by setting name: the CLI reads them from their flag
	 * declarations (cli/flags.ts), which refuse a blank value.
	 */
	flags?: Partial<Record<SettingName, string>>;
	env?: NodeJS.ProcessEnv;
	/** Where the stored settings come from: a ConfigStore, or a run's one read of it (cli/deps.ts). */
	store?: Pick<ConfigStore, 'all'>;
};

/** Resolves every setting with the one rule (precedence.ts): flag > env > the selected profile's stored value > default. */
export function resolveConfig(input: ResolveInput = {}): ResolvedConfig {
	const env = input.env ?? process.env;
	const store = input.store ?? new ConfigStore(env);
	const flags = input.flags ?? {};
	const resolved: ResolvedConfig = {};
	// One read of the file for every setting (a damaged file throws here, as before).
	const stored = store.all();
	for (const name of settingNames) {
		const spec = settingSpecs[name];
		const picked = pickValue({flag: spec.flag ? flags[name] : undefined, env: env[spec.env], stored: storedSetting(stored, name), default: spec.defaultValue});
		if (picked !== undefined) {
			resolved[name] = {value: String(picked.value).trim(), source: picked.source};
		}
	}

	return resolved;
}

export type Settings<K extends SettingName> = Record<K, string> & Partial<Record<SettingName, string>>;

/**
 * Returns the values of `required` (and any others that are set), or throws one error naming every
 * missing one, or the first one whose value cannot be used (a base URL that is not a URL).
 */
export function requireSettings<K extends SettingName>(resolved: ResolvedConfig, required: readonly K[], command: string): Settings<K> {
	const missing = required.filter(name => resolved[name] === undefined);
	if (missing.length > 0) {
		throw new MissingSettingsError(missing, command);
	}

	const values: Partial<Record<SettingName, string>> = {};
	for (const name of settingNames) {
		const setting = resolved[name];
		if (setting) {
			const expected = settingProblem(name, setting.value);
			if (expected) {
				const {env, flag} = settingSpecs[name];
				throw new SettingInvalidError({name, source: setting.source, env, ...(flag ? {flag} : {}), value: setting.value, expected});
			}

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
