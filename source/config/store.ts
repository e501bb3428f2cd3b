import {chmodSync, existsSync} from 'node:fs';
import Conf from 'conf';
import type {SettingName} from './settings.js';

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

export const configFileMode = 0o600;

/**
 * The on-disk store (conf): written atomically with mode 0600, placed in PLATFORM_TUI_CONFIG_DIR
 * when that is set. Every read goes to the file, so a value written by another process (a rotated
 * key, say) is seen at once.
 */
export class ConfigStore {
	private readonly conf: Conf<StoredConfig>;

	constructor(env: NodeJS.ProcessEnv = process.env) {
		const directory = env.PLATFORM_TUI_CONFIG_DIR?.trim();
		this.conf = new Conf<StoredConfig>({
			projectName: 'platform-tui',
			projectSuffix: '',
			configName: 'config',
			configFileMode,
			...(directory ? {cwd: directory} : {}),
		});
	}

	get path(): string {
		return this.conf.path;
	}

	get(name: SettingName): string | undefined {
		const value = this.conf.get(name);
		return typeof value === 'string' && value !== '' ? value : undefined;
	}

	all(): StoredConfig {
		return this.conf.store;
	}

	set(name: SettingName, value: string): void {
		this.conf.set(name, value);
		this.secure();
	}

	/** Sets several values in one atomic write. */
	setMany(values: Partial<StoredConfig>): void {
		this.conf.set({...this.conf.store, ...values});
		this.secure();
	}

	delete(name: SettingName): void {
		this.conf.delete(name);
		this.secure();
	}

	rotation(): RotationState {
		return this.conf.get('rotation') ?? {};
	}

	private secure(): void {
		// The file is created with 0600; keep it so even if someone loosened it by hand.
		if (existsSync(this.conf.path)) {
			chmodSync(this.conf.path, configFileMode);
		}
	}
}
