/**
 * The client suites' fixture: one recording server for the file, and clients made against it
 * (closed after each test, with the server's requests and scripted answers reset).
 */
import {afterAll, afterEach, beforeAll} from 'vitest';
import {PlatformClient, type PlatformClientOptions, type RequestLogEntry} from '../../source/platform/client.js';
import type {ManualClock} from '../../source/platform/clock.js';
import {startRecordingServer, type RecordingServer} from '../support/recording-server.js';
import {waitFor} from '../support/wait.js';

export type ClientFixture = {
	/** The file's recording server (started before the first test). */
	readonly server: RecordingServer;
	/** A client against it with the suite's defaults; `options` override them. */
	client: (options?: Partial<PlatformClientOptions>) => PlatformClient;
};

export function clientFixture(defaults: Partial<PlatformClientOptions> = {}): ClientFixture {
	let server: RecordingServer | undefined;
	const clients: PlatformClient[] = [];
	const started = (): RecordingServer => {
		if (!server) {
			throw new Error('the recording server starts in beforeAll');
		}

		return server;
	};

	beforeAll(async () => {
		server = await startRecordingServer();
	});

	afterEach(async () => {
		started().requests.length = 0;
		started().setFallback(() => ({status: 200, body: {}}));
		await Promise.all(clients.splice(0).map(async created => created.close()));
	});

	afterAll(async () => {
		await server?.close();
	});

	return {
		get server() {
			return started();
		},
		client(options = {}) {
			const created = new PlatformClient({baseUrl: started().url, apiKey: 'sk_test_key_0001', appId: 'app_123', retryBaseMs: 10, ...defaults, ...options});
			clients.push(created);
			return created;
		},
	};
}

/**
 * Once `ready` holds (the call has reached the step the test waits for), moves `clock` to its next
 * wake-up (a backoff wait or an attempt's timeout) and returns how far it moved.
 */
export async function wakeWhen(clock: ManualClock, ready: () => boolean, what: string): Promise<number> {
	// Wrapped so that a wake-up due now (0 ms) counts as found.
	const {ms} = await waitFor(() => {
		const wake = ready() ? clock.nextWakeMs() : undefined;
		return wake === undefined ? undefined : {ms: wake};
	}, {what});
	clock.advance(ms);
	return ms;
}

/** The log entries of the retries (each names its wait and why). */
export function retries(log: readonly RequestLogEntry[]): RequestLogEntry[] {
	return log.filter(entry => entry.retryInMs !== undefined);
}
