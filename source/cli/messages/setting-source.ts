/**
 * Where a setting's value came from, for advice that names it: `--base-url` when the flag gave
 * the address, PLATFORM_BASE_URL when the environment did, the stored setting otherwise. The CLI
 * passes the sources (error-message.ts) in the error's data as `sources`.
 */
import {settingSpecs, type SettingName, type SettingSource} from '../../config/settings.js';
import {kebab} from '../kebab.js';

export type SettingSources = Partial<Record<SettingName, SettingSource>>;

/** The sources an error's data carries, when the CLI passed them. */
export function sourcesOf(data: Record<string, unknown>): SettingSources {
	const {sources} = data;
	return typeof sources === 'object' && sources !== null ? sources : {};
}

/** How to name where `name` was set: its flag, its environment variable, or the stored setting. */
export function settingWhere(name: SettingName, data: Record<string, unknown>): string {
	const {env} = settingSpecs[name];
	switch (sourcesOf(data)[name]) {
		case 'flag': {
			return `--${kebab(name)}`;
		}

		case 'env': {
			return env;
		}

		case 'stored': {
			return `the stored ${name} ('platform-tui config get ${name}')`;
		}

		default: {
			return `${env} ('platform-tui config get ${name}')`;
		}
	}
}
