import {chmodSync, copyFileSync, existsSync} from 'node:fs';
import {isRecord} from '../format/value.js';
import {configFileMode, configFilePath, ensureConfigDir, readConfigFile, writeConfigFile} from './file.js';
import {withLock, withLockSync, type LockOptions} from './lock.js';
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
};

export type StoredConfig = Partial<Record<SettingName, string>> & {rotation?: RotationState};

/** Reads and writes the file while the caller holds the lock (see `ConfigStore.transaction`). */
export type ConfigTransaction = {
	read(): StoredConfig;
	/** Merges `values` into the file as it is now and writes it in one atomic step. */
	write(values: Partial<StoredConfig>): void;
};

function rotationOf(value: unknown): RotationState {
	if (!isRecord(value)) {
		return {};
	}

	const state: RotationState = {};
	for (const name of ['previousKeyExpiresAt', 'previousKeyMasked', 'lastRotatedAt'] as const) {
		const field = value[name];
		if (typeof field === 'string') {
			state[name] = field;
		}
	}

	return state;
}

/**
 * The settings file (JSON, mode 0600, in PLATFORM_TUI_CONFIG_DIR when set). Nothing is read when
 * the store is made, so the path is known even when the file is damaged. Every read goes to the
 * file, so a value written by another process (a rotated key, say) is seen at once. Every write
 * holds the file's lock and merges into the file as it is at that moment.
 */
export class ConfigStore {
	readonly path: string;
	private readonly lock: LockOptions;

	constructor(env: NodeJS.ProcessEnv = process.env, options: {lock?: LockOptions} = {}) {
		this.path = configFilePath(env);
		this.lock = options.lock ?? {};
	}

	get(name: SettingName): string | undefined {
		const value = this.all()[name];
		return typeof value === 'string' && value !== '' ? value : undefined;
	}

	/** The whole file; throws ConfigDamagedError / ConfigAccessError when it cannot be used. */
	all(): StoredConfig {
		return readConfigFile(this.path);
	}

	set(name: SettingName, value: string): void {
		this.setMany({[name]: value});
	}

	/** Sets several values in one atomic write. */
	setMany(values: Partial<StoredConfig>): void {
		this.update(current => ({...current, ...values}));
	}

	delete(name: SettingName): void {
		this.update(current => Object.fromEntries(Object.entries(current).filter(([key]) => key !== name)));
	}

	rotation(): RotationState {
		return rotationOf(this.all().rotation);
	}

	/**
	 * Holds the lock for the whole of `action` (a key rotation: read the key, call the platform,
	 * store the answer), so no other process writes in between.
	 */
	async transaction<T>(action: (transaction: ConfigTransaction) => Promise<T>, lock: LockOptions = this.lock): Promise<T> {
		ensureConfigDir(this.path);
		return withLock(this.path, async () => action({
			read: () => this.all(),
			write: values => {
				this.writeUnlocked({...this.all(), ...values});
			},
		}), lock);
	}

	/**
	 * Starts a fresh file holding only `values`, after copying the present (damaged) file to a
	 * `.bak` beside it, so nothing the user had is lost. Returns the copy's path.
	 */
	startFresh(values: Partial<StoredConfig>): {backup?: string} {
		ensureConfigDir(this.path);
		return withLockSync(this.path, () => {
			let backup: string | undefined;
			if (existsSync(this.path)) {
				backup = `${this.path}.${new Date().toISOString().replaceAll(':', '-')}.bak`;
				copyFileSync(this.path, backup);
				chmodSync(backup, configFileMode);
			}

			this.writeUnlocked(values);
			return backup ? {backup} : {};
		}, this.lock);
	}

	private update(change: (current: StoredConfig) => StoredConfig): void {
		ensureConfigDir(this.path);
		withLockSync(this.path, () => {
			this.writeUnlocked(change(this.all()));
		}, this.lock);
	}

	private writeUnlocked(value: StoredConfig): void {
		writeConfigFile(this.path, value);
		// The rename keeps the new file's 0600; this also tightens a file someone loosened by hand.
		chmodSync(this.path, configFileMode);
	}
}
