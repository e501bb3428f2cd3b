/**
 * What the workflow waits for before each request (issue 13.11): the space loads beside the chat
 * creation, every pending content of an ingestion round is searched at once, and the reply is
 * polled as soon as the prompt is accepted. Each is checked by the order of calls through a
 * wrapper of the real client against the local platform, never by elapsed time.
 */
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import type {PlatformClient} from '../../source/platform/client.js';
import {runUpload} from '../../source/workflow/run-upload.js';
import type {UploadEvent} from '../../source/workflow/events.js';
import {clientFor, startPlatform} from '../support/platform.js';
import {waitFor} from '../support/wait.js';
import {makeFolder, recorder} from './helpers.js';
import {defined} from '../support/defined.js';

/** The real client with some methods replaced; the others (and `this`) stay the real ones. */
function wrap(real: PlatformClient, methods: Partial<PlatformClient>): PlatformClient {
	return Object.assign(Object.create(real) as PlatformClient, methods);
}

describe('runUpload: when each request is sent', () => {
	let platform: LocalPlatform;
	let real: PlatformClient;
	const cleanups: Array<() => void | Promise<void>> = [];

	beforeAll(async () => {
		platform = (await startPlatform()).platform;
		real = clientFor(platform);
	});

	afterEach(async () => {
		for (const cleanup of cleanups.splice(0).reverse()) {
			await cleanup();
		}
	});

	afterAll(async () => {
		await real.close();
		await platform.close();
	});

	function folder(count: number): string {
		const files = Object.fromEntries(Array.from({length: count}, (_, index) => [`doc-${String(index).padStart(2, '0')}.txt`, `Document ${index}: the warranty lasts two years.\n`]));
		const made = makeFolder(files);
		cleanups.push(made.cleanup);
		return made.dir;
	}

	const run = async (client: PlatformClient, count = 1, onEvent?: (event: UploadEvent) => void) => runUpload({client, folder: folder(count), assistantId: platform.assistantId, prompt: 'How long is the warranty?', pollIntervalMs: 10}, onEvent);

	it('creates the chat without waiting for the space, and still reports the space first', async () => {
		let chatAsked: () => void = () => undefined;
		const chatCalled = new Promise<void>(resolve => {
			chatAsked = resolve;
		});
		const client = wrap(real, {
			// The space answers only once the chat was asked for: a workflow that waited for the
			// space before creating the chat would never get either.
			async getSpace(...args: Parameters<PlatformClient['getSpace']>) {
				await chatCalled;
				return real.getSpace(...args);
			},
			async createChat(...args: Parameters<PlatformClient['createChat']>) {
				chatAsked();
				return real.createChat(...args);
			},
		});
		const {events, onEvent} = recorder();
		const result = await run(client, 1, onEvent);
		const types = events.map(event => event.type);
		expect(types.indexOf('space-loaded')).toBeGreaterThan(-1);
		expect(types.indexOf('space-loaded')).toBeLessThan(types.indexOf('chat-creating'));
		expect(types.indexOf('chat-creating')).toBeLessThan(types.indexOf('chat-created'));
		expect(result.space?.name).toBe('Local Assistant');
	});

	it('searches every pending content of a round at once (20 files: 20 searches in flight)', async () => {
		let inFlight = 0;
		let most = 0;
		const client = wrap(real, {
			async searchContent(...args: Parameters<PlatformClient['searchContent']>) {
				inFlight++;
				most = Math.max(most, inFlight);
				try {
					return await real.searchContent(...args);
				} finally {
					inFlight--;
				}
			},
		});
		const result = await run(client, 20);
		expect(result.contentIds).toHaveLength(20);
		expect(most).toBe(20);
	});

	it('polls the reply as soon as the prompt is accepted, as the SDK does', async () => {
		// The prompt's answer returns only once the reply is complete; the first poll must then
		// come before the event loop has turned once (any sleep, even 0 ms, comes after setImmediate).
		let turned = false;
		const polls: boolean[] = [];
		const client = wrap(real, {
			async createSpaceMessage(...args: Parameters<PlatformClient['createSpaceMessage']>) {
				const sent = await real.createSpaceMessage(...args);
				await waitFor(async () => real.getLatestMessage(defined((sent as {chatId?: string}).chatId, 'the chat id')), {until: latest => latest.id !== sent.id && Boolean(latest.stoppedStreamingAt), what: 'the complete reply'});
				setImmediate(() => {
					turned = true;
				});
				return sent;
			},
			async getLatestMessage(...args: Parameters<PlatformClient['getLatestMessage']>) {
				polls.push(turned);
				return real.getLatestMessage(...args);
			},
		});
		const result = await run(client);
		expect(result.reply).not.toBe('');
		expect(polls).toEqual([false]);
	});
});
