import type {ChildProcessWithoutNullStreams} from 'node:child_process';
import {createServer as createHttpServer} from 'node:http';
import {createServer} from 'node:net';
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import {ConfigStore} from '../../source/config/store.js';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import type {PlatformClient} from '../../source/platform/client.js';
import {apologyText} from '../../source/receiver/answer/answer-text.js';
import type {ReceiverEvent} from '../../source/receiver/events.js';
import {runCli, startCli} from '../support/cli.js';
import {defined} from '../support/defined.js';
import {clientFor, startPlatform} from '../support/platform.js';
import {runInPty} from '../support/pty.js';
import {hangLimitMs, waitFor} from '../support/wait.js';
import {startModel} from './helpers.js';

/** The built `serve` running as a child process, its stdout read line by line. */
type ServeChild = {
	child: ChildProcessWithoutNullStreams;
	lines: string[];
	stderr(): string;
	/** NDJSON lines parsed (with --json). */
	events(): Array<Record<string, unknown>>;
	url: string;
	exit(): Promise<number | null>;
};

async function startServe(args: string[], env: Record<string, string | undefined>): Promise<ServeChild> {
	const run = startCli(['serve', '--port', '0', '--json', ...args], {env});
	const {child, closed: exited} = run;
	const stderr = () => run.stderr();
	const lines: string[] = [];
	let partial = '';
	child.stdout.on('data', (chunk: string) => {
		partial += chunk;
		const parts = partial.split('\n');
		partial = parts.pop() ?? '';
		lines.push(...parts);
	});
	const parse = () => lines.filter(line => line.startsWith('{')).map(line => JSON.parse(line) as Record<string, unknown>);
	const first = await waitFor<Record<string, unknown> | undefined>(() => parse()[0] ?? (child.exitCode === null ? undefined : {failed: stderr()}), {until: value => value !== undefined, what: 'serve to listen'});
	if (first?.type !== 'listening') {
		throw new Error(`serve did not start: ${JSON.stringify(first)} ${stderr()}`);
	}

	return {child, lines, stderr, events: parse, url: String(first.url), exit: async () => exited};
}

function envFor(platform: LocalPlatform, extra: Record<string, string> = {}): Record<string, string> {
	return {
		PLATFORM_BASE_URL: platform.baseUrl,
		PLATFORM_APP_ID: platform.appId,
		PLATFORM_ENDPOINT_SECRET: platform.endpointSecret,
		...extra,
	};
}

async function freePortInUse(): Promise<{port: number; close(): Promise<void>}> {
	const server = createServer();
	await new Promise<void>(resolve => {
		server.listen(0, '127.0.0.1', resolve);
	});
	const address = server.address() as {port: number};
	return {
		port: address.port,
		async close() {
			await new Promise(resolve => {
				server.close(resolve);
			});
		},
	};
}

describe('platform-tui serve and trigger (built CLI)', () => {
	let platform: LocalPlatform;
	let user: PlatformClient;
	let serve: ServeChild | undefined;

	beforeAll(async () => {
		({platform} = await startPlatform());
		user = clientFor(platform);
		// serve reads the API key from the store (no PLATFORM_API_KEY), as after `keys set`.
		await new ConfigStore(process.env).set('apiKey', platform.apiKey);
	});

	afterEach(async () => {
		if (serve && serve.child.exitCode === null) {
			serve.child.kill('SIGKILL');
			await serve.exit();
		}

		serve = undefined;
		platform.setWebhookUrl();
		platform.setFaults({latencyMs: 0});
	});

	afterAll(async () => {
		await user.close();
		await platform.close();
	});

	it('names every missing setting and exits 1', async () => {
		const result = await runCli(['serve'], {env: {PLATFORM_TUI_CONFIG_DIR: '/nonexistent-platform-tui-test'}});
		expect(result.code).toBe(1);
		for (const name of ['baseUrl', 'apiKey', 'appId', 'endpointSecret', 'PLATFORM_ENDPOINT_SECRET']) {
			expect(result.stderr).toContain(name);
		}

		expect(result.stderr).not.toContain('    at ');
	});

	it('says which port is taken', async () => {
		const taken = await freePortInUse();
		try {
			const result = await runCli(['serve', '--port', String(taken.port)], {env: envFor(platform)});
			expect(result.code).toBe(1);
			expect(result.stderr).toContain(`Port ${taken.port} on 127.0.0.1 is already in use`);
			expect(result.stderr).toContain('--port');
		} finally {
			await taken.close();
		}
	});

	it('refuses bad numbers with the flag named', async () => {
		const result = await runCli(['serve', '--concurrency', '0'], {env: envFor(platform)});
		expect(result.code).toBe(1);
		expect(result.stderr).toContain('--concurrency must be a whole number from 1 to 1000, e.g. --concurrency 8; got "0".');
	});

	it('receives signed test events from trigger, in NDJSON, and exits 0 on SIGTERM', async () => {
		serve = await startServe([], envFor(platform));
		expect(serve.events()[0]).toMatchObject({type: 'listening', webhookUrl: `${serve.url}/webhook`, secrets: 1, key: `…${platform.apiKey.slice(-4)}`});
		expect(serve.lines[0]).not.toContain(platform.apiKey);
		expect(serve.lines[0]).not.toContain(platform.endpointSecret);

		const sent = await runCli(['trigger', 'user-message', '--url', `${serve.url}/webhook`, '--text', 'Hello receiver', '--chat-id', 'chat_cli'], {env: {PLATFORM_ENDPOINT_SECRET: platform.endpointSecret}});
		expect(sent.code).toBe(0);
		// Piped: the receiver's answer alone on stdout, what was sent on stderr.
		expect(sent.stdout).toBe('200 {"success":true}\n');
		expect(sent.stderr).toMatch(/^Sent platform\.chat\.user-message\.created evt_[0-9a-f]{24} to http:\/\/127\.0\.0\.1:\d+\/webhook\n$/);
		const accepted = await waitFor(() => serve?.events().find(event => event.type === 'accepted'), {until: event => event !== undefined, what: 'the accepted event'});
		expect(accepted).toMatchObject({eventType: 'platform.chat.user-message.created', chatId: 'chat_cli', text: 'Hello receiver', handling: 'logged'});

		// Same id twice: the second is a duplicate, still 200.
		for (let round = 0; round < 2; round++) {
			const repeated = await runCli(['trigger', 'user-message', '--url', `${serve.url}/webhook`, '--repeat-id', 'evt_repeat0123456789abcdef', '--json'], {env: {PLATFORM_ENDPOINT_SECRET: `${platform.endpointSecret},other`}});
			expect(repeated.code).toBe(0);
			expect(JSON.parse(repeated.stdout.split('\n')[0] ?? '')).toMatchObject({type: 'response', eventId: 'evt_repeat0123456789abcdef', status: 200, body: {success: true}});
		}

		await waitFor(() => serve?.events().filter(event => event.type === 'duplicate').length, {until: count => count === 1, what: 'the duplicate'});

		// A wrong secret: 400 printed, a hint on stderr, exit 1.
		const wrong = await runCli(['trigger', 'external-module-chosen', '--url', `${serve.url}/webhook`, '--secret-file', '-'], {input: 'not-the-secret\n'});
		expect(wrong.code).toBe(1);
		expect(wrong.stdout).toContain('400 {"success":false,"error":"Invalid signature"}');
		expect(wrong.stderr).toContain('The receiver answered 400');
		await waitFor(() => serve?.events().find(event => event.type === 'rejected'), {until: event => event !== undefined, what: 'the rejection'});
		expect(serve.events().find(event => event.type === 'rejected')).toMatchObject({reason: 'signature-mismatch', remoteAddress: '127.0.0.1', status: 400});

		serve.child.kill('SIGTERM');
		expect(await serve.exit()).toBe(0);
		// Each line named its event; the last line lists none (serve runs for days: no id is kept for it).
		expect(serve.events().at(-1)).toEqual({type: 'result', command: 'serve', exitCode: 0, chatIds: [], contentIds: [], eventIds: []});
		const last = serve.events().at(-2) as Extract<ReceiverEvent, {type: 'stopped'}>;
		expect(last).toMatchObject({type: 'stopped', cutOff: 0, counters: {received: 4, verified: 3, rejected: 1, duplicates: 1}});
	});

	it('fails clearly when no receiver listens, or without a secret', async () => {
		const withSecret = {env: {PLATFORM_ENDPOINT_SECRET: 's'}};
		const unreachable = await runCli(['trigger', 'user-message', '--url', 'http://127.0.0.1:9/webhook'], withSecret);
		expect(unreachable.code).toBe(1);
		expect(unreachable.stderr).toContain('Could not reach http://127.0.0.1:9/webhook (ECONNREFUSED)');
		const noSecret = await runCli(['trigger', 'user-message'], {});
		expect(noSecret.code).toBe(1);
		expect(noSecret.stderr).toContain('set PLATFORM_ENDPOINT_SECRET, pass --secret-file PATH');
		// A receiver that never answers: trigger gives up after --timeout.
		const silent = createHttpServer(() => undefined);
		await new Promise<void>(resolve => {
			silent.listen(0, '127.0.0.1', resolve);
		});
		try {
			const held = await runCli(['trigger', 'user-message', '--url', `http://127.0.0.1:${(silent.address() as {port: number}).port}/webhook`, '--timeout', '0.3'], withSecret);
			expect(held.code).toBe(1);
			expect(held.stderr).toContain('did not answer within 0.3 s');
		} finally {
			silent.closeAllConnections();
			silent.close();
		}

		const badKind = await runCli(['trigger', 'payment-received'], withSecret);
		expect(badKind.code).toBe(1);
		expect(badKind.stderr).toContain('user-message or external-module-chosen');
	});

	it('answers a chosen event through the webhook path, and uses a key rotated by `keys rotate` from the next request on', async () => {
		serve = await startServe([], envFor(platform));
		platform.setWebhookUrl(`${serve.url}/webhook`);
		const oldKey = platform.apiKey;
		const chat = await user.createChat({title: 'CLI chosen', assistantId: platform.assistantId});
		await user.createSpaceMessage({assistantId: platform.assistantId, chatId: chat.id, text: 'Is anybody there?'});
		const first = await waitFor(async () => user.getLatestMessage(chat.id), {until: message => Boolean(message.stoppedStreamingAt), what: 'the first answer'});
		expect(first.text).not.toBe(apologyText);
		const firstCalls = platform.requests.filter(request => request.path === '/message-log');
		expect(firstCalls.at(-1)?.headers.authorization).toBe(`Bearer ${oldKey}`);

		// Another process rotates the key and stores the new one.
		const rotated = await runCli(['keys', 'rotate', '--yes', '--json'], {env: {PLATFORM_BASE_URL: platform.baseUrl, PLATFORM_APP_ID: platform.appId, PLATFORM_USER_ID: platform.userId, PLATFORM_COMPANY_ID: platform.companyId, PLATFORM_ASSISTANT_ID: platform.assistantId}});
		expect(rotated.code).toBe(0);
		const newKey = new ConfigStore(process.env).get('apiKey');
		expect(newKey).toBe(platform.apiKey);
		expect(newKey).not.toBe(oldKey);

		const before = platform.requests.length;
		const second = await user.createChat({title: 'After rotation', assistantId: platform.assistantId});
		const userClient = clientFor(platform);
		await userClient.createSpaceMessage({assistantId: platform.assistantId, chatId: second.id, text: 'Still there?'});
		await waitFor(async () => userClient.getLatestMessage(second.id), {until: message => Boolean(message.stoppedStreamingAt), what: 'the second answer'});
		await userClient.close();
		const receiverCalls = platform.requests.slice(before).filter(request => request.path === '/message-log' || request.path === '/search/search' || request.path === '/openai/chat/completions');
		expect(receiverCalls.length).toBeGreaterThanOrEqual(4);
		for (const call of receiverCalls) {
			expect(call.headers.authorization).toBe(`Bearer ${newKey}`);
		}

		serve.child.kill('SIGTERM');
		expect(await serve.exit()).toBe(0);
	});

	it('SIGTERM during a held completion leaves the event waiting for the next start (no log FAILED, no apology) and exits 0', async () => {
		// A model that answers only long after the hang limit: the completion is still held when the
		// drain ends, however slow the machine.
		const model = await startModel({delayMs: 10 * hangLimitMs});
		const slow = (await startPlatform({llmUrl: model.url})).platform;
		const slowUser = clientFor(slow);
		try {
			await new ConfigStore(process.env).set('apiKey', slow.apiKey);
			serve = await startServe(['--drain-timeout', '0.2'], envFor(slow));
			slow.setWebhookUrl(`${serve.url}/webhook`);
			const chat = await slowUser.createChat({title: 'Slow', assistantId: slow.assistantId});
			await slowUser.createSpaceMessage({assistantId: slow.assistantId, chatId: chat.id, text: 'Take your time'});
			const history = await slowUser.getChatMessages(chat.id);
			const assistant = {id: defined(defined(history.messages.find(message => message.role === 'ASSISTANT'), 'the assistant message').id, 'its id')};
			// The completion call has arrived and is being held by the model.
			await waitFor(() => model.active, {until: active => active > 0, what: 'the completion call'});
			serve.child.kill('SIGTERM');
			expect(await serve.exit()).toBe(0);
			// Stopping is not failing: log 2 stays open and the message unwritten until the next start.
			expect(slow.messageLogs(assistant.id).map(log => log.status)).toEqual(['COMPLETED', 'RUNNING']);
			expect(slow.message(assistant.id)?.text).not.toBe(apologyText);
			expect(slow.message(assistant.id)?.stoppedStreamingAt ?? null).toBeNull();
			const stopped = serve.events().at(-2);
			expect(stopped).toMatchObject({type: 'stopped', cutOff: 1, leftWaiting: 1});
			expect(serve.events().find(event => event.type === 'stage' && event.stage === 'failed')).toBeUndefined();
			expect(serve.events().find(event => event.type === 'stage' && event.stage === 'waiting')).toMatchObject({reason: expect.stringContaining('drain') as unknown, waitingFor: 'answer'});
		} finally {
			await new ConfigStore(process.env).set('apiKey', platform.apiKey);
			await slowUser.close();
			await slow.close();
			await model.close();
		}
	});

	it('prints one plain line per event without a TTY', async () => {
		const run = startCli(['serve', '--port', '0'], {env: envFor(platform)});
		const {child, closed: exited} = run;
		try {
			// Piped: the start-up banner on stderr, the event log alone on stdout.
			const url = defined(await waitFor(() => /Listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(run.stderr())?.[1], {until: value => value !== undefined, what: 'the listening line'}));
			expect(run.stderr()).toContain('secrets 1 ok');
			expect(run.stderr()).toContain(`key …${platform.apiKey.slice(-4)}`);
			expect(run.stdout()).not.toContain('Listening on');
			const sent = await runCli(['trigger', 'user-message', '--url', `${url}/webhook`, '--text', 'plain please'], {env: {PLATFORM_ENDPOINT_SECRET: platform.endpointSecret}});
			expect(sent.code).toBe(0);
			await waitFor(() => run.stdout(), {until: text => text.includes('plain please'), what: 'the event line'});
			expect(run.stdout()).toMatch(/\d\d:\d\d:\d\d {2}200 {2}user-message\.created {2}evt_\w+ {2}chat chat_\w+ {2}"plain please" {2}logged\n/);
			child.kill('SIGINT');
			expect(await exited).toBe(0);
			expect(run.stdout()).toMatch(/stopped: received 1 · verified 1/);
		} finally {
			if (child.exitCode === null) {
				child.kill('SIGKILL');
			}
		}
	});

	it('shows the live screen in a terminal: header, key countdown, rows; Ctrl+C stops it with exit 0', async () => {
		// A rotation two hours ago with a day of overlap: the previous key is valid for 22 more hours.
		const rotatedAt = Date.now() - (2 * 3600 * 1000);
		await new ConfigStore(process.env).setMany({rotation: {previousKeyMasked: '…prev', lastRotatedAt: new Date(rotatedAt).toISOString(), previousKeyExpiresAt: new Date(rotatedAt + (24 * 3600 * 1000)).toISOString()}});
		const session = runInPty(['serve', '--port', '0'], {env: envFor(platform), columns: 140});
		try {
			const screen = await session.waitFor(/listening on http:\/\/127\.0\.0\.1:\d+/);
			const url = defined(/listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(screen)?.[1], 'the address');
			await session.waitFor('1 endpoint secret');
			await session.waitFor(/previous key …prev valid until [\d: -]+ \(in 2[01] h \d\d min\)/);
			await session.waitFor(`key …${platform.apiKey.slice(-4)}`);
			const sent = await runCli(['trigger', 'user-message', '--url', `${url}/webhook`, '--text', 'On the screen'], {env: {PLATFORM_ENDPOINT_SECRET: platform.endpointSecret}});
			expect(sent.code).toBe(0);
			await session.waitFor(/200 {2}user-message\.created {2}chat_\w+ {2}"On the screen" {2}logged/);
			await session.waitFor('received 1 · verified 1 · rejected 0');
			session.write('\u0003');
			const {code, output} = await session.exit();
			expect(code).toBe(0);
			expect(output).toContain('Stopped.');
		} finally {
			session.kill('SIGKILL');
		}
	});
});
