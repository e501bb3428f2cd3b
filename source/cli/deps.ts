/**
 * The one factory of a command's dependencies. Everything a command touches outside its own
 * logic (config store, resolved settings, platform client, streams, clock, signal) comes from here,
 * so tests swap the context and run commands in-process.
 */
import {apiKeySupplier, requireSettings, resolveConfig, type ResolvedConfig, type Settings} from '../config/resolve.js';
import {defaultProfile, isProfileName} from '../config/profiles.js';
import type {SettingName} from '../config/settings.js';
import {ConfigStore, type StoredConfig} from '../config/store.js';
import {clientRetryBase} from '../config/test-timers.js';
import {PlatformClient, type PlatformClientOptions, type RequestLogEntry} from '../platform/client.js';
import {overdueKey} from '../keys/age-policy.js';
import {keyAgeWarning} from './messages/key-age.js';
import type {CommandContext, Output} from '../context.js';
import {profileFlagValue, settingFlagValues} from './setting-flags.js';
import type {JsonRecordLine} from './json-records.js';
import {createJsonWriter} from './json-writer.js';
import {createPlainOutput} from './output.js';

export type Clock = {now(): number};

export type Deps = {
	context: CommandContext;
	clock: Clock;
	/** The config store, seen through the selected profile (created on first use: `config path` never reads the file). */
	store(): ConfigStore;
	/**
	 * `{profile}` when the run uses a profile other than `default`, else nothing: for the lines and
	 * boxes that name it (the --json end line, serve's and listen's start). The store's choice, from
	 * the run's own read of the config file (one read when the run made none). Never throws.
	 */
	profile(): {profile?: string};
	/**
	 * The selected profile's stored settings as this run read them: the file is read once per run,
	 * on the first call, and every later call (the settings, the key-age warning, `keys show`, the
	 * wording of the run's error) answers from that read; a read that failed fails again alike. The
	 * API key supplier (`apiKey`) and the writes still go to the file.
	 */
	stored(): StoredConfig;
	/** Every setting resolved flag > env > stored > default, from the run's one read (`stored`). */
	resolved(): ResolvedConfig;
	/** The values of `required`, or one error naming every missing one. */
	settings<K extends SettingName>(required: readonly K[], command: string): Settings<K>;
	/** The API key read afresh per call (env, else the store), so a key rotated elsewhere is used next. */
	apiKey(fallback: string): () => string;
	/**
	 * A platform client for these settings; `--debug` logs each request to stderr. Making one is
	 * using the key: the key-age warning is printed (once per run) unless `use.warnKeyAge` is false.
	 */
	client(settings: Partial<Record<SettingName, string>> & {baseUrl: string; apiKey: string; appId: string}, extra?: Partial<PlatformClientOptions>, use?: {warnKeyAge?: boolean}): PlatformClient;
	/** Prints the key-age policy's warning on stderr when the key in use is older than keyMaxAge; at most once per run. */
	warnKeyAge(): void;
	/**
	 * The run's one writer of records (context.ts `Output`): with --json each record of a declared
	 * type (json-records.ts), checked and printed as one NDJSON line; without, its plain text.
	 */
	output: Output<JsonRecordLine>;
};

/** One debug line for a platform request; keys appear masked only. */
export function formatRequestLog(entry: RequestLogEntry): string {
	const parts = [`${entry.method} ${entry.path}`, `attempt ${entry.attempt}`];
	if (entry.status !== undefined) {
		parts.push(`→ ${entry.status}`);
	}

	parts.push(`${entry.durationMs} ms`);
	if (entry.requestId) {
		parts.push(`request-id ${entry.requestId}`);
	}

	if (entry.key) {
		parts.push(`key ${entry.key}`);
	}

	if (entry.error) {
		parts.push(`error: ${entry.error}`);
	}

	if (entry.retryInMs !== undefined) {
		parts.push(`retry in ${entry.retryInMs} ms`);
	}

	return `[debug] ${parts.join('  ')}`;
}

/** The stored config, read once per run; a read that failed throws the same error at each call. */
function storedOnce(getStore: () => ConfigStore): () => StoredConfig {
	let read: {config: StoredConfig} | {error: unknown} | undefined;
	return () => {
		if (read === undefined) {
			try {
				read = {config: getStore().all()};
			} catch (error) {
				read = {error};
			}
		}

		if ('error' in read) {
			throw read.error;
		}

		return read.config;
	};
}

/** The platform client's options for these settings; with `--debug`, each request is logged to stderr. */
function clientOptions(context: CommandContext, settings: Parameters<Deps['client']>[0], apiKey: PlatformClientOptions['apiKey'], extra: Partial<PlatformClientOptions>): PlatformClientOptions {
	const options: PlatformClientOptions = {
		baseUrl: settings.baseUrl,
		apiKey,
		appId: settings.appId,
		// The suite's shorter retry base (config/test-timers.ts) is read from this run's own env.
		...clientRetryBase(context.env),
		...extra,
	};
	if (settings.userId) {
		options.userId = settings.userId;
	}

	if (settings.companyId) {
		options.companyId = settings.companyId;
	}

	if (context.debug) {
		options.onRequest = entry => {
			context.stderr.write(`${formatRequestLog(entry)}\n`);
			extra.onRequest?.(entry);
		};
	}

	return options;
}

/**
 * `output`: the dispatcher's writer, which ends the run; without one (a test calling a command
 * itself), a writer of the context's own.
 */
export function createDeps(context: CommandContext, overrides: {clock?: Clock; output?: Output<JsonRecordLine>} = {}): Deps {
	let store: ConfigStore | undefined;
	const getStore = () => {
		store ??= new ConfigStore(context.env, {profile: profileFlagValue(context.flags)});
		return store;
	};

	const stored = storedOnce(getStore);
	const resolved = () => resolveConfig({flags: settingFlagValues(context.flags), env: context.env, store: {all: stored}});
	let keyAgeChecked = false;
	const deps: Deps = {
		context,
		clock: overrides.clock ?? {now: () => Date.now()},
		store: getStore,
		profile() {
			let name: string;
			try {
				name = getStore().profileName();
			} catch {
				// A --profile refused as a value names no profile; the run says why.
				return {};
			}

			// Nor does a PLATFORM_PROFILE that no profile can be called (refused as profile-invalid).
			return name === defaultProfile || !isProfileName(name) ? {} : {profile: name};
		},
		stored,
		resolved,
		settings: (required, command) => requireSettings(resolved(), required, command),
		apiKey: fallback => apiKeySupplier({env: context.env, store: getStore(), fallback}),
		warnKeyAge() {
			if (keyAgeChecked) {
				return;
			}

			keyAgeChecked = true;
			let warning: string | undefined;
			try {
				const overdue = overdueKey({file: stored(), resolved: resolved(), env: context.env, now: new Date(deps.clock.now())});
				warning = overdue === undefined ? undefined : keyAgeWarning(overdue);
			} catch {
				// A file that cannot be read is reported by the command itself, not by a warning.
			}

			if (warning) {
				context.stderr.write(`${warning}\n`);
			}
		},
		client(settings, extra = {}, use = {}) {
			if (use.warnKeyAge !== false) {
				deps.warnKeyAge();
			}

			return new PlatformClient(clientOptions(context, settings, deps.apiKey(settings.apiKey), extra));
		},
		output: overrides.output ?? (context.json ? createJsonWriter(context.stdout) : createPlainOutput(context.stdout)),
	};
	return deps;
}
