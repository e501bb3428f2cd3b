import {apiKeySupplier, requireSettings, resolveConfig, type Settings} from '../config/resolve.js';
import type {SettingName} from '../config/settings.js';
import {ConfigStore} from '../config/store.js';
import {PlatformClient, type PlatformClientOptions, type RequestLogEntry} from '../platform/client.js';
import type {CommandContext} from './legacy-types.js';

/** Resolves settings for a command (flag > env > stored) and fails naming every missing one. */
export function settingsFor<K extends SettingName>(context: CommandContext, required: readonly K[], command: string): {settings: Settings<K>; store: ConfigStore} {
	const store = new ConfigStore(context.env);
	const resolved = resolveConfig({flags: context.flags, env: context.env, store});
	return {settings: requireSettings(resolved, required, command), store};
}

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

/**
 * The platform client for a command: the API key is read through a supplier (env, else the store
 * read afresh per request), and --debug logs each request to stderr.
 */
export function createClient(
	context: CommandContext,
	settings: Partial<Record<SettingName, string>> & {baseUrl: string; apiKey: string; appId: string},
	store: ConfigStore,
	extra: Partial<PlatformClientOptions> = {},
): PlatformClient {
	const options: PlatformClientOptions = {
		baseUrl: settings.baseUrl,
		apiKey: apiKeySupplier({env: context.env, store, fallback: settings.apiKey}),
		appId: settings.appId,
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

	return new PlatformClient(options);
}

/** Writes one NDJSON line. */
export function writeJson(context: Pick<CommandContext, 'stdout'>, value: unknown): void {
	context.stdout.write(`${JSON.stringify(value)}\n`);
}
