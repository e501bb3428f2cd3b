import {existsSync} from 'node:fs';
import {isRecord} from '../format/value.js';
import {ConfigDamagedError, ProfileInvalidError, ProfileUnknownError} from './errors.js';
import {configFilePath, ensureConfigDir, moveConfigAside, readConfigFile, writeConfigFile} from './file.js';
import {withLock, type LockOptions} from './lock.js';
import {hasProfile, isProfileName, profileNameRule, profileNames, profileSection, selectProfile, withActiveProfile, withProfileSection, type ProfileSelection} from './profiles.js';
import type {RotationState, SettingName, StoredConfig} from './settings.js';

export {configFileMode} from './file.js';

export type {RotationState, StoredConfig} from './settings.js';

/** Reads and writes the file while the caller holds the lock (see `ConfigStore.transaction`). */
export type ConfigTransaction = {
	read(): StoredConfig;
	/** Merges `values` into the file as it is now and writes it in one atomic step. */
	write(values: Partial<StoredConfig>): Promise<void>;
};

/** The rotation state of a file already read: only its fields that are text (the reader does not check them). */
export function storedRotation(config: StoredConfig): RotationState {
	const value: unknown = config.rotation;
	if (!isRecord(value)) {
		return {};
	}

	const state: RotationState = {};
	for (const name of ['previousKeyExpiresAt', 'previousKeyMasked', 'lastRotatedAt', 'keySetAt'] as const) {
		const field = value[name];
		if (typeof field === 'string') {
			state[name] = field;
		}
	}

	return state;
}

/** A setting of a file already read: a non-empty string, else undefined. */
export function storedSetting(config: StoredConfig, name: SettingName): string | undefined {
	const value = config[name];
	return typeof value === 'string' && value !== '' ? value : undefined;
}

/** How a store is made: the lock's patience, and the profile asked for on the command line. */
export type StoreOptions = {
	lock?: LockOptions;
	/** The --profile flag's value: the profile read and written (else PLATFORM_PROFILE, else the file's activeProfile, else `default`). */
	profile?: string | undefined;
};

/** The profiles of one read of the file: which one this run uses, and each one's settings. */
export type ProfileList = {selected: ProfileSelection; profiles: Array<{name: string; config: StoredConfig}>};

/**
 * The settings file (JSON, mode 0600, in PLATFORM_TUI_CONFIG_DIR when set), seen through one
 * profile (profiles.ts): `all`, `get`, the writes and transactions read and write the selected
 * profile's settings only, in the shape the file had before profiles. Nothing is read when the
 * store is made, so the path is known even when the file is damaged. Every read goes to the file,
 * so a value written by another process (a rotated key, say) is seen at once; which profile is
 * used is decided on the first read and kept, so a `config use` elsewhere never switches a running
 * process to another profile's key. Every write holds the file's lock, merges into the file as it
 * is at that moment and is written by `conf` (loaded on the first write only). Reading a profile
 * the file does not hold throws ProfileUnknownError; writing one creates it.
 */
export class ConfigStore {
	readonly path: string;
	private readonly lock: LockOptions;
	private readonly env: NodeJS.ProcessEnv;
	private readonly flagProfile: string | undefined;
	private chosen: ProfileSelection | undefined;

	constructor(env: NodeJS.ProcessEnv = process.env, options: StoreOptions = {}) {
		this.path = configFilePath(env);
		this.lock = options.lock ?? {};
		this.env = env;
		this.flagProfile = options.profile;
	}

	/** The whole file, every profile in it; throws ConfigDamagedError (naming the profile being read) / ConfigAccessError. */
	file(): Record<string, unknown> {
		try {
			return readConfigFile(this.path);
		} catch (error) {
			if (error instanceof ConfigDamagedError && error.data.profile === undefined) {
				throw new ConfigDamagedError({...error.data, profile: (this.chosen ?? this.unread()).name});
			}

			throw error;
		}
	}

	/** The profile this store reads and writes, and where its name came from (decided once, on the first read). */
	selection(file?: Record<string, unknown>): ProfileSelection {
		if (this.chosen === undefined) {
			const chosen = selectProfile({flag: this.flagProfile, env: this.env, file: file ?? this.file()});
			// A name asked for that no profile can have is refused as such (as --profile's is), not looked up.
			if (chosen.source === 'flag' || chosen.source === 'env') {
				checkName(chosen);
			}

			this.chosen = chosen;
		}

		return this.chosen;
	}

	/**
	 * The name of the profile this store uses, for the lines that name it: the one its reads chose
	 * (one read now when nothing was read yet); a file that cannot be read chooses none. Never throws.
	 */
	profileName(): string {
		try {
			return this.selection().name;
		} catch {
			return this.unread().name;
		}
	}

	get(name: SettingName): string | undefined {
		return storedSetting(this.all(), name);
	}

	/** The selected profile's settings; throws ConfigDamagedError / ConfigAccessError / ProfileUnknownError when they cannot be read. */
	all(): StoredConfig {
		const file = this.file();
		return this.section(file, false);
	}

	/** Every profile with its settings, from one read of the file. */
	profiles(): ProfileList {
		const file = this.file();
		return {selected: this.selection(file), profiles: profileNames(file).map(name => ({name, config: profileSection(file, name) ?? {}}))};
	}

	async set(name: SettingName, value: string): Promise<void> {
		await this.setMany({[name]: value});
	}

	/** Sets several values in one atomic write. */
	async setMany(values: Partial<StoredConfig>): Promise<void> {
		await this.update(current => ({...current, ...values}));
	}

	async delete(name: SettingName): Promise<void> {
		await this.update(current => Object.fromEntries(Object.entries(current).filter(([key]) => key !== name)));
	}

	rotation(): RotationState {
		return storedRotation(this.all());
	}

	/** Makes `name` the profile used when neither --profile nor PLATFORM_PROFILE is given; an unknown name changes nothing. */
	async use(name: string): Promise<void> {
		await this.locked(file => {
			if (!hasProfile(file, name)) {
				throw new ProfileUnknownError({profile: name, source: 'argument', known: profileNames(file), file: this.path});
			}

			return withActiveProfile(file, name);
		});
	}

	/**
	 * Holds the lock for the whole of `action` (a key rotation: read the key, call the platform,
	 * store the answer), so no other process writes in between. With `create`, a profile the file
	 * does not hold yet reads as empty and is created by the write.
	 */
	async transaction<T>(action: (transaction: ConfigTransaction) => Promise<T>, lock: LockOptions = this.lock, options: {create?: boolean} = {}): Promise<T> {
		ensureConfigDir(this.path);
		const create = options.create ?? false;
		return withLock(this.path, async () => action({
			read: () => this.section(this.file(), create),
			write: async values => {
				const file = this.file();
				await writeConfigFile(this.path, withProfileSection(file, this.selection(file).name, {...this.section(file, true), ...values}));
			},
		}), lock);
	}

	/**
	 * Starts a fresh file holding only `values` (in the selected profile), after moving the present
	 * (damaged) file to a `.bak` beside it (mode 0600), so nothing the user had is lost and `conf`,
	 * which reads the file when made, starts from nothing. Returns the moved file's path.
	 */
	async startFresh(values: Partial<StoredConfig>): Promise<{backup?: string}> {
		ensureConfigDir(this.path);
		return withLock(this.path, async () => {
			const selection = this.chosen ?? this.unread();
			checkName(selection);
			let backup: string | undefined;
			if (existsSync(this.path)) {
				backup = `${this.path}.${new Date().toISOString().replaceAll(':', '-')}.bak`;
				moveConfigAside(this.path, backup);
			}

			await writeConfigFile(this.path, withProfileSection({}, selection.name, values));
			return backup ? {backup} : {};
		}, this.lock);
	}

	/** The choice when the file cannot say which profile it would choose (damaged, unreadable): the flag's or PLATFORM_PROFILE's, else `default`. */
	private unread(): ProfileSelection {
		return selectProfile({flag: this.flagProfile, env: this.env, file: {}});
	}

	/** The selected profile's section of `file`; a profile the file lacks is empty with `create`, else refused. */
	private section(file: Record<string, unknown>, create: boolean): StoredConfig {
		const selection = this.selection(file);
		const section = profileSection(file, selection.name);
		if (section !== undefined) {
			return section;
		}

		if (!create) {
			throw new ProfileUnknownError({profile: selection.name, source: selection.source === 'default' ? 'stored' : selection.source, known: profileNames(file), file: this.path});
		}

		checkName(selection);
		return {};
	}

	private async update(change: (current: StoredConfig) => StoredConfig): Promise<void> {
		await this.locked(file => withProfileSection(file, this.selection(file).name, change(this.section(file, true))));
	}

	/** Reads the file under the lock (and so validates it before conf is made on it) and writes what `change` makes of it. */
	private async locked(change: (file: Record<string, unknown>) => Record<string, unknown>): Promise<void> {
		ensureConfigDir(this.path);
		await withLock(this.path, async () => writeConfigFile(this.path, change(this.file())), this.lock);
	}
}

/** A profile about to be created must have a name that can be stored and typed. */
function checkName(selection: ProfileSelection): void {
	if (!isProfileName(selection.name)) {
		throw new ProfileInvalidError({profile: selection.name, source: selection.source === 'default' ? 'stored' : selection.source, rule: profileNameRule});
	}
}
