import {PlatformClient} from '../platform/client.js';
import type {Space} from '../platform/types.js';
import type {ConnectionSettings} from './settings.js';
import {clientRetryBase} from './test-timers.js';

/** Checks a set of settings with one Get space call; resolves with the space, or rejects with the platform error. */
export async function verifySettings(settings: ConnectionSettings, options: {signal?: AbortSignal; retries?: number} = {}): Promise<Space> {
	const client = new PlatformClient({
		baseUrl: settings.baseUrl,
		apiKey: settings.apiKey,
		appId: settings.appId,
		userId: settings.userId,
		companyId: settings.companyId,
		retries: options.retries ?? 1,
		timeoutMs: 15_000,
		...clientRetryBase(),
	});
	try {
		return await client.getSpace(settings.assistantId, options.signal ? {signal: options.signal} : {});
	} finally {
		await client.close();
	}
}
