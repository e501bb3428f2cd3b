/**
 * The platform a command talks to: the configured one, or (`upload --local`) a local platform
 * started in-process with the embedded webhook receiver as its external module.
 */
import {clientRetryBase} from '../config/test-timers.js';
import type {PlatformClient, PlatformClientOptions} from '../platform/client.js';
import type {RetryTracker} from '../workflow/retries.js';
import {formatRequestLog, type Deps} from '../cli/deps.js';

export type Target = {
	client: PlatformClient;
	assistantId: string;
	/** The platform's base address (the sync manifest is kept per platform). */
	baseUrl: string;
	/** Announced before the run (the --local addresses). */
	note?: {baseUrl: string; receiverUrl?: string};
	close(): Promise<void>;
};

/** The configured platform (flags, environment, stored settings); `command` names who needs them. */
export function configuredTarget(deps: Deps, retries: RetryTracker | undefined, command: string): Target {
	const settings = deps.settings(['baseUrl', 'apiKey', 'appId', 'userId', 'companyId', 'assistantId'], command);
	const client = deps.client(settings, {onRequest(entry) {
		retries?.onRequest(entry);
	}});
	return {client, assistantId: settings.assistantId, baseUrl: settings.baseUrl, close: async () => client.close()};
}

/**
 * --local: the local platform in-process, with the embedded webhook receiver registered as the
 * space's external module, so the answer arrives through the webhook path. No configuration.
 */
export async function localTarget(deps: Deps, options: {model?: string}, retries: RetryTracker): Promise<Target> {
	const [{startLocalPlatform}, {PlatformClient}, {defaultModel}] = await Promise.all([
		import('../local-platform/index.js'),
		import('../platform/client.js'),
		import('../config/settings.js'),
	]);
	const local = await startLocalPlatform({host: '127.0.0.1', port: 0});
	const settings = local.settings();
	const {debug, stderr} = deps.context;
	const clientOptions: PlatformClientOptions = {
		baseUrl: settings.baseUrl,
		// The local platform's own key, never PLATFORM_API_KEY or the stored one.
		apiKey: () => local.apiKey,
		appId: settings.appId,
		userId: settings.userId,
		companyId: settings.companyId,
		...clientRetryBase(deps.context.env),
	};
	const client = new PlatformClient({...clientOptions, onRequest(entry) {
		retries.onRequest(entry);
		if (debug) {
			stderr.write(`${formatRequestLog(entry)}\n`);
		}
	}});
	const receiverClient = new PlatformClient(clientOptions);
	let receiver: {close(drainTimeoutMs?: number): Promise<unknown>} | undefined;
	let receiverUrl: string | undefined;
	try {
		const {createReceiver} = await import('../receiver/server.js');
		const created = createReceiver({client: receiverClient, secrets: [settings.endpointSecret], model: options.model ?? defaultModel, drainTimeoutMs: 2000});
		receiver = created;
		const listening = await created.listen({host: '127.0.0.1', port: 0});
		receiverUrl = `${listening.url}/webhook`;
		local.setWebhookUrl(receiverUrl);
	} catch (error) {
		await receiver?.close(0).catch(() => undefined);
		await Promise.allSettled([client.close(), receiverClient.close()]);
		await local.close();
		throw error;
	}

	return {
		client,
		assistantId: settings.assistantId,
		baseUrl: settings.baseUrl,
		note: {baseUrl: settings.baseUrl, receiverUrl},
		async close() {
			await receiver.close(2000).catch(() => undefined);
			await Promise.allSettled([client.close(), receiverClient.close()]);
			await local.close();
		},
	};
}

export function localBanner(note: NonNullable<Target['note']>): string {
	return `Local platform: ${note.baseUrl}${note.receiverUrl ? `, answers through the webhook receiver at ${note.receiverUrl}` : ''}`;
}

