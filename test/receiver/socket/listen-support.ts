/** What the listen tests share: a platform whose socket closes fast, a handler that counts forwards, listen started in-process, and events published at a pace. */
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import listen from '../../../source/commands/listen/listen.js';
import {eventTypes, type WebhookEvent} from '../../../source/platform/types.js';
import {startPlatform, type TestPlatform} from '../../support/platform.js';
import {startRecordingServer, type RecordingServer} from '../../support/recording-server.js';
import {startCommand} from '../../support/run-command.js';

export type Cleanups = Array<() => Promise<void>>;

export async function dataDirectory(cleanups: Cleanups): Promise<string> {
	const directory = await mkdtemp(join(tmpdir(), 'listen-'));
	cleanups.push(async () => rm(directory, {recursive: true, force: true}));
	return directory;
}

/** A local platform whose streams close every `maxAgeMs` and go live `goLiveMs` after they open. */
export async function socketPlatform(cleanups: Cleanups, maxAgeMs = 2000, goLiveMs = 300): Promise<TestPlatform> {
	const platform = await startPlatform({eventSocketMaxAgeMs: maxAgeMs, eventSocketGoLiveMs: goLiveMs});
	cleanups.push(async () => platform.close());
	return platform;
}

/** The developer's handler: 200 for every forward, counted by event id. */
export async function countingHandler(cleanups: Cleanups): Promise<{server: RecordingServer; url: string; counts: Map<string, number>}> {
	const counts = new Map<string, number>();
	const server = await startRecordingServer({keepBodiesUnder: 4096, handler(request, response) {
		const id = String(request.headers['x-platform-id']);
		counts.set(id, (counts.get(id) ?? 0) + 1);
		response.writeHead(200, {'content-type': 'application/json'}).end('{}');
	}});
	cleanups.push(async () => server.close());
	return {server, url: `${server.url}/webhook`, counts};
}

/** Listen in-process with --json and short timers (a fresh stream every second, half a second beside the old). */
export function startListen(test: TestPlatform, flags: Record<string, unknown>, cleanups: Cleanups) {
	const stop = new AbortController();
	const running = startCommand(listen, {flags: {reconnectEvery: '1s', overlap: '500ms', socketBackoff: 50, forwardBackoff: 5, retryBackoff: 50, ...flags}, env: test.env(), signal: stop.signal});
	cleanups.push(async () => {
		stop.abort();
		await running.done.catch(() => undefined);
	});
	const records = () => running.stdout().split('\n').filter(line => line.startsWith('{')).map(line => JSON.parse(line) as Record<string, unknown> & {type: string});
	return {...running, stop, records, ofType: (type: string) => records().filter(record => record.type === type)};
}

export function userEvent(id: string, test: TestPlatform): WebhookEvent {
	return {id, version: '1.0.0', event: eventTypes.userMessageCreated, createdAt: String(Math.floor(Date.now() / 1000)), userId: test.platform.userId, companyId: test.platform.companyId, payload: {chatId: 'chat_listen', assistantId: 'assistant_1', text: id}};
}

/**
 * Publishes `perSecond` events a second for `seconds` (ids `prefix-N`) on the platform's socket;
 * resolves with when each was published (ms).
 */
export async function publishAtPace(test: TestPlatform, options: {perSecond: number; seconds: number; prefix: string; during?: (elapsedMs: number) => void}): Promise<Map<string, number>> {
	const published = new Map<string, number>();
	const total = options.perSecond * options.seconds;
	const started = Date.now();
	return new Promise(resolve => {
		let sent = 0;
		const timer = setInterval(() => {
			// As many as are due by now: the pace holds on a loaded machine whose timers run late.
			const due = Math.min(total, Math.floor((Date.now() - started) * options.perSecond / 1000));
			while (sent < due) {
				const id = `${options.prefix}-${sent++}`;
				published.set(id, Date.now());
				test.platform.publishEvent(userEvent(id, test));
			}

			options.during?.(Date.now() - started);
			if (sent >= total) {
				clearInterval(timer);
				resolve(published);
			}
		}, 1000 / options.perSecond);
	});
}
