/**
 * The legacy commands' helpers, kept while commands move to `Command` + `run(options, deps)`; each
 * delegates to `createDeps` (deps.ts), the one implementation. Removed once nothing imports it.
 */
import type {Settings} from '../config/resolve.js';
import type {SettingName} from '../config/settings.js';
import type {ConfigStore} from '../config/store.js';
import type {PlatformClient, PlatformClientOptions} from '../platform/client.js';
import {createDeps} from './deps.js';
import type {CommandContext} from './legacy-types.js';

export {formatRequestLog} from './deps.js';

/** Resolves settings for a command (flag > env > stored) and fails naming every missing one. */
export function settingsFor<K extends SettingName>(context: CommandContext, required: readonly K[], command: string): {settings: Settings<K>; store: ConfigStore} {
	const deps = createDeps(context);
	return {settings: deps.settings(required, command), store: deps.store()};
}

/**
 * The platform client for a command: the API key is read through a supplier (env, else the store
 * read afresh per request), and --debug logs each request to stderr.
 */
export function createClient(
	context: CommandContext,
	settings: Partial<Record<SettingName, string>> & {baseUrl: string; apiKey: string; appId: string},
	_store: ConfigStore,
	extra: Partial<PlatformClientOptions> = {},
): PlatformClient {
	return createDeps(context).client(settings, extra);
}

/** Writes one NDJSON line. */
export function writeJson(context: Pick<CommandContext, 'stdout'>, value: unknown): void {
	context.stdout.write(`${JSON.stringify(value)}\n`);
}
