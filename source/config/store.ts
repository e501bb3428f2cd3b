import {existsSync} from 'node:fs';
import {isRecord} from '../format/value.js';
import {configFilePath, ensureConfigDir, moveConfigAside, readConfigFile, writeConfigFile} from './file.js';
import {withLock, type LockOptions} from './lock.js';
import type {SettingName} from './settings.js';

export {configFileMode} from './file.js';

/** Key-rotation state kept beside the settings. */
export type RotationState = {
	/** When the key that was replaced stops working (ISO 8601 UTC). */
	previousKeyExpiresAt?: string;
	/** The replaced key, masked (`…last4`); the full key is never stored. */
	previousKeyMasked?: string;
	/** When the last rotation happened (ISO 8601 UTC). */
	lastRotatedAt?: string;
	/** When the stored key was set (`keys set`) or rotated in (ISO 8601 UTC): its age counts from here. */
	keySetAt?: string;
};

export type StoredConfig = Partial<Record<SettingName, string>> & {rotation?: RotationState};

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

/**
 * The settings file (JSON, mode 0600, in PLATFORM_TUI_CONFIG_DIR when set). Nothing is read when
 * the store is made, so the path is known even when the file is damaged. Every read goes to the
 * file, so a value written by another process (a rotated key, say) is seen at once. Every write
 * holds the file's lock, merges into the file as it is at that moment and is written by `conf`
 * (loaded on the first write only, so commands that only read never load it).
 */
export class ConfigStore {
	readonly path: string;
	private readonly lock: LockOptions;

	constructor(env: NodeJS.ProcessEnv = process.env, options: {lock?: LockOptions} = {}) {
		this.path = configFilePath(env);
		this.lock = options.lock ?? {};
	}

	get(name: SettingName): string | undefined {
		return storedSetting(this.all(), name);
	}

	/** The whole file; throws ConfigDamagedError / ConfigAccessError when it cannot be used. */
	all(): StoredConfig {
		return readConfigFile(this.path);
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

	/**
	 * Holds the lock for the whole of `action` (a key rotation: read the key, call the platform,
	 * store the answer), so no other process writes in between.
	 */
	async transaction<T>(action: (transaction: ConfigTransaction) => Promise<T>, lock: LockOptions = this.lock): Promise<T> {
		ensureConfigDir(this.path);
		return withLock(this.path, async () => action({
			read: () => this.all(),
			write: async values => writeConfigFile(this.path, {...this.all(), ...values}),
		}), lock);
	}

	/**
	 * Starts a fresh file holding only `values`, after moving the present (damaged) file to a
	 * `.bak` beside it (mode 0600), so nothing the user had is lost and `conf`, which reads the
	 * file when made, starts from nothing. Returns the moved file's path.
	 */
	async startFresh(values: Partial<StoredConfig>): Promise<{backup?: string}> {
		ensureConfigDir(this.path);
		return withLock(this.path, async () => {
			let backup: string | undefined;
			if (existsSync(this.path)) {
				backup = `${this.path}.${new Date().toISOString().replaceAll(':', '-')}.bak`;
				moveConfigAside(this.path, backup);
			}

			await writeConfigFile(this.path, values);
			return backup ? {backup} : {};
		}, this.lock);
	}

	private async update(change: (current: StoredConfig) => StoredConfig): Promise<void> {
		ensureConfigDir(this.path);
		// `all()` reads (and so validates) the file under the lock before conf is made on it.
		await withLock(this.path, async () => writeConfigFile(this.path, change(this.all())), this.lock);
	}
}
