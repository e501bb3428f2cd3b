/**
 * One local-platform starter for tests: a platform tuned for fast steps, the environment a
 * command needs to use it (PLATFORM_* settings), and a client factory with short retries.
 */
import {startLocalPlatform, type LocalPlatform, type LocalPlatformOptions} from '../../source/local-platform/index.js';
import {PlatformClient, type PlatformClientOptions} from '../../source/platform/client.js';

/** Steps short enough for tests; any option given wins. */
export const fastPlatformOptions: LocalPlatformOptions = {
	ingestionStepMs: 5,
	assistantStepMs: 5,
	deliveryRetryBaseMs: 10,
	deliveryTimeoutMs: 5000,
};

export type TestPlatform = {
	/** The platform's base URL. */
	url: string;
	platform: LocalPlatform;
	/** PLATFORM_* variables that point a command at this platform (the key read at call time). */
	env(extra?: Record<string, string | undefined>): Record<string, string | undefined>;
	/** A client using the platform's newest key, with short retries. */
	client(options?: Partial<PlatformClientOptions>): PlatformClient;
	close(): Promise<void>;
};

/** The settings environment for a local platform (what `local` prints for a user to export). */
export function platformEnv(platform: LocalPlatform, extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
	return {
		PLATFORM_BASE_URL: platform.baseUrl,
		PLATFORM_API_KEY: platform.apiKey,
		PLATFORM_APP_ID: platform.appId,
		PLATFORM_USER_ID: platform.userId,
		PLATFORM_COMPANY_ID: platform.companyId,
		PLATFORM_ASSISTANT_ID: platform.assistantId,
		PLATFORM_ENDPOINT_SECRET: platform.endpointSecret,
		...extra,
	};
}

/** The project's client against a local platform, always with its newest key. */
export function clientFor(platform: LocalPlatform, options: Partial<PlatformClientOptions> = {}): PlatformClient {
	return new PlatformClient({
		baseUrl: platform.baseUrl,
		apiKey: () => platform.apiKey,
		appId: platform.appId,
		userId: platform.userId,
		companyId: platform.companyId,
		retries: 2,
		retryBaseMs: 5,
		retryCapMs: 50,
		timeoutMs: 10_000,
		...options,
	});
}

export async function startPlatform(options: LocalPlatformOptions = {}): Promise<TestPlatform> {
	const platform = await startLocalPlatform({...fastPlatformOptions, ...options});
	return {
		url: platform.baseUrl,
		platform,
		env: extra => platformEnv(platform, extra),
		client: clientOptions => clientFor(platform, clientOptions),
		close: async () => platform.close(),
	};
}
