import {createServer} from 'node:net';
import type {AddressInfo} from 'node:net';
import {describe, expect, it} from 'vitest';
import command, {exportLines, parseLocal} from '../../source/commands/local.js';
import {localMessages} from '../../source/cli/messages/local.js';
import {LocalPlatformError} from '../../source/local-platform/index.js';
import {createDeps} from '../../source/cli/deps.js';
import type {CommandContext, CommandInput} from '../../source/cli/types.js';
import {memoryStream, runCommand, testEnv} from '../support/run-command.js';
import {waitFor} from '../support/wait.js';
import {defined} from '../support/defined.js';

type Run = {exit: Promise<number>; stdout: () => string[]; stderr: () => string; stop: AbortController};

/** Starts `local` in-process with memory streams, so a test reads the output while it runs. */
function start(flags: Record<string, unknown>, json: boolean, env: Record<string, string> = {}): Run {
	const stop = new AbortController();
	const stdout = memoryStream();
	const stderr = memoryStream();
	const context: CommandContext = {
		argv: [],
		flags: {host: '127.0.0.1', keyOverlap: '24h', ...flags},
		env: testEnv(env),
		json,
		debug: false,
		interactive: false,
		stdin: memoryStream(),
		stdout,
		stderr,
		signal: stop.signal,
	};
	const exit = command.run(command.parse(context), createDeps(context));
	const lines = (text: string): string[] => text.split('\n').filter(line => line !== '');
	return {exit, stop, stdout: () => lines(stdout.text()), stderr: () => stderr.text()};
}

function input(flags: Record<string, unknown>): CommandInput {
	return {argv: [], flags, env: {}};
}

const settingKeys = ['type', 'baseUrl', 'apiKey', 'appId', 'userId', 'companyId', 'assistantId', 'endpointSecret'];

describe('platform-tui local', () => {
	it('with --json prints the settings as the first line, then NDJSON log lines, and stops cleanly on abort', async () => {
		const run = start({port: '0', keyOverlap: '90s'}, true, {PLATFORM_ENDPOINT_SECRET: 'whsec_cli'});
		const {exit} = run;
		const [first] = await waitFor(() => run.stdout(), {until: lines => lines.length > 0});
		const settings = JSON.parse(defined(first)) as Record<string, string>;
		expect(Object.keys(settings)).toEqual(settingKeys);
		expect(settings.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
		expect(settings.endpointSecret).toBe('whsec_cli');

		const response = await fetch(`${settings.baseUrl}/space/${settings.assistantId}`, {
			headers: {authorization: `Bearer ${settings.apiKey}`, 'x-app-id': defined(settings.appId), 'x-user-id': defined(settings.userId), 'x-company-id': defined(settings.companyId)},
		});
		expect(response.status).toBe(200);
		const before = Date.now();
		const rotation = await fetch(`${settings.baseUrl}/v2/keys/rotate`, {method: 'POST', headers: {authorization: `Bearer ${settings.apiKey}`}});
		const after = Date.now();
		const {old_key_expires_at: expires} = (await rotation.json()) as {old_key_expires_at: string};
		// The 90 s overlap from --key-overlap, counted from the moment of rotation.
		expect(Date.parse(expires)).toBeGreaterThanOrEqual(before + 90_000 - 1);
		expect(Date.parse(expires)).toBeLessThanOrEqual(after + 90_000);

		const lines = await waitFor(() => run.stdout(), {until: all => all.length >= 4});
		const events = lines.slice(1).map(line => JSON.parse(line) as Record<string, unknown>);
		expect(events).toEqual(expect.arrayContaining([
			expect.objectContaining({type: 'request', method: 'GET', path: `/space/${settings.assistantId}`, status: 200}),
			expect.objectContaining({type: 'key-rotated', oldKeyExpiresAt: expires}),
		]));
		for (const line of lines.slice(1)) {
			expect(line).not.toContain(settings.apiKey);
		}

		run.stop.abort('SIGTERM');
		expect(await exit).toBe(0);
		await expect(fetch(`${settings.baseUrl}/health`)).rejects.toThrow();
	});

	it('without --json prints ready-to-paste export lines and a human request log on stderr', async () => {
		const run = start({port: '0'}, false);
		const {exit} = run;
		const lines = await waitFor(() => run.stdout(), {until: all => all.length >= 9});
		const exports = lines.filter(line => line.startsWith('export '));
		expect(exports.map(line => line.split('=')[0])).toEqual([
			'export PLATFORM_BASE_URL',
			'export PLATFORM_API_KEY',
			'export PLATFORM_APP_ID',
			'export PLATFORM_USER_ID',
			'export PLATFORM_COMPANY_ID',
			'export PLATFORM_ASSISTANT_ID',
			'export PLATFORM_ENDPOINT_SECRET',
		]);
		expect(lines.filter(line => !line.startsWith('export ')).every(line => line.startsWith('#'))).toBe(true);
		const baseUrl = defined(defined(exports[0]).split('=')[1]);
		await fetch(`${baseUrl}/space/chat`, {method: 'POST'});
		const log = await waitFor(() => run.stderr(), {until: text => text.includes('/space/chat')});
		expect(log).toMatch(/POST \/space\/chat → 401/);
		run.stop.abort('SIGINT');
		expect(await exit).toBe(0);
		expect(run.stderr()).toContain('Local platform stopped.');
	});

	it('maps flags to options and rejects bad values with the one sentence', async () => {
		expect(parseLocal(input({port: '4011', host: '127.0.0.1', keyOverlap: '1h30m', failRate: '0.2', latency: '50', seed: '3', webhookUrl: 'http://127.0.0.1:8080/webhook', llmUrl: 'http://127.0.0.1:11434/v1'})).platform).toEqual({
			port: 4011,
			host: '127.0.0.1',
			keyOverlapMs: 5_400_000,
			eventSocketMaxAgeMs: 600_000,
			answers: 'full',
			failRate: 0.2,
			latencyMs: 50,
			seed: 3,
			webhookUrl: 'http://127.0.0.1:8080/webhook',
			llmUrl: 'http://127.0.0.1:11434/v1',
		});
		expect(parseLocal(input({})).platform.port).toBe(4010);
		expect(parseLocal(input({})).platform.keyOverlapMs).toBe(86_400_000);
		expect(parseLocal(input({eventSocketMaxAge: '2s', fault: ['eventSocket:drop']})).platform).toMatchObject({eventSocketMaxAgeMs: 2000, faults: [{operation: 'eventSocket', kind: 'drop'}]});
		expect(parseLocal(input({appId: 'app_fixed', userId: 'user_fixed', companyId: 'company_fixed'})).platform).toMatchObject({appId: 'app_fixed', userId: 'user_fixed', companyId: 'company_fixed'});
		expect(parseLocal(input({fault: ['createMessageLog:perform-502:1', '*:empty-200']})).platform.faults).toEqual([
			{operation: 'createMessageLog', kind: 'perform-502', times: 1},
			{operation: '*', kind: 'empty-200'},
		]);
		const sentences: Array<[Record<string, unknown>, string]> = [
			[{keyOverlap: 'soon'}, '--key-overlap must be a duration up to 365d (a number and a unit: ms, s, m, h or d), e.g. --key-overlap 90s; got "soon".'],
			[{failRate: '1.5'}, '--fail-rate must be a number from 0 to 1, e.g. --fail-rate 0.1; got "1.5".'],
			[{latency: '-1'}, '--latency must be a whole number from 0 to 600000, e.g. --latency 0; got "-1".'],
			[{port: '70000'}, '--port must be a whole number from 0 to 65535, e.g. --port 4010; got "70000".'],
			[{port: 'abc'}, '--port must be a whole number from 0 to 65535, e.g. --port 4010; got "abc".'],
			[{host: '0.0.0.0'}, '--host must be a loopback address (127.0.0.1, ::1 or localhost), e.g. --host 127.0.0.1; got "0.0.0.0".'],
			[{webhookUrl: 'ftp://127.0.0.1/x'}, '--webhook-url must be a URL starting with http:// or https://, e.g. --webhook-url http://127.0.0.1:8080; got "ftp://127.0.0.1/x".'],
			[{fault: 'createMessageLog:explode'}, '--fault must be OPERATION:KIND or OPERATION:KIND:TIMES (KIND: 429, 500, 503, perform-502, empty-200, slow, drop; OPERATION: * or an operation such as createMessageLog, or eventSocket); got "createMessageLog:explode".'],
			[{fault: ['noSuchOperation:503']}, '--fault must be OPERATION:KIND or OPERATION:KIND:TIMES (KIND: 429, 500, 503, perform-502, empty-200, slow, drop; OPERATION: * or an operation such as createMessageLog, or eventSocket); got "noSuchOperation:503".'],
		];
		for (const [flags, sentence] of sentences) {
			 
			const result = await runCommand(command, {flags});
			expect(result.code).toBe(1);
			expect(result.stderr).toBe(`${sentence}\n`);
			expect(result.stdout).toBe('');
		}

		expect(exportLines({baseUrl: 'http://127.0.0.1:1', apiKey: 'a b', appId: 'x', userId: 'u', companyId: 'c', assistantId: 'a', endpointSecret: 'it\'s'})).toEqual([
			'export PLATFORM_BASE_URL=http://127.0.0.1:1',
			'export PLATFORM_API_KEY=\'a b\'',
			'export PLATFORM_APP_ID=x',
			'export PLATFORM_USER_ID=u',
			'export PLATFORM_COMPANY_ID=c',
			'export PLATFORM_ASSISTANT_ID=a',
			'export PLATFORM_ENDPOINT_SECRET=\'it\'\\\'\'s\'',
		]);
	});

	it('starts, prints the banner with the faults in force, and stops on abort (through the in-process runner)', async () => {
		const stop = new AbortController();
		stop.abort('SIGINT');
		const result = await runCommand(command, {flags: {port: '0', fault: ['createChat:empty-200'], failRate: '0.1'}, signal: stop.signal});
		expect(result.code).toBe(0);
		expect(result.stdout).toMatch(/^# Local platform on http:\/\/127\.0\.0\.1:\d+ /);
		expect(result.stdout).toContain('# key overlap 1 d 0 h, no webhook URL (the built-in assistant answers), local model, fail rate 0.1, fault createChat:empty-200');
		expect(result.stderr).toBe('Local platform stopped.\n');
	});

	it('serves the --fault rules it was started with', async () => {
		const run = start({port: '0', fault: ['createChat:empty-200:1']}, true);
		const [first] = await waitFor(() => run.stdout(), {until: lines => lines.length > 0});
		const settings = JSON.parse(first ?? '{}') as Record<string, string>;
		const headers = {authorization: `Bearer ${settings.apiKey}`, 'x-app-id': settings.appId ?? '', 'x-user-id': 'user_cli', 'x-company-id': 'company_cli', 'content-type': 'application/json'};
		const post = async (): Promise<Response> => fetch(`${settings.baseUrl}/space/chat`, {method: 'POST', headers, body: JSON.stringify({title: 'x', assistantId: settings.assistantId})});
		const empty = await post();
		expect(empty.status).toBe(200);
		expect(await empty.text()).toBe('null');
		expect((await post()).status).toBe(201);
		const logged = await waitFor(() => run.stdout(), {until: lines => lines.some(line => line.includes('"fault":"empty-200"'))});
		expect(logged.length).toBeGreaterThan(1);
		run.stop.abort('SIGTERM');
		expect(await run.exit).toBe(0);
	});

	it('throws a coded error for a port in use, worded by the local messages table', async () => {
		const blocker = createServer();
		await new Promise<void>(resolve => {
			blocker.listen(0, '127.0.0.1', resolve);
		});
		try {
			const {port} = blocker.address() as AddressInfo;
			const result = await runCommand(command, {flags: {port: String(port)}});
			expect(result.code).toBe(1);
			expect(result.error).toBeInstanceOf(LocalPlatformError);
			const error = result.error as LocalPlatformError;
			expect(error.code).toBe('local-port-in-use');
			expect(localMessages[error.code]?.(error.data)).toEqual({
				message: `Port ${port} on 127.0.0.1 is already in use.`,
				next: 'Pick another with --port N (0 picks a free one), or stop what listens there.',
			});
		} finally {
			await new Promise(resolve => {
				blocker.close(resolve);
			});
		}
	});

	it('words a webhook URL that is not on loopback', async () => {
		const result = await runCommand(command, {flags: {port: '0', webhookUrl: 'https://example.com/webhook'}});
		const error = result.error as LocalPlatformError;
		expect(error.code).toBe('local-url-not-loopback');
		expect(localMessages[error.code]?.(error.data).message).toBe('The local platform only contacts loopback addresses; --webhook-url names example.com.');
	});

	it('reads durations with the shared kit', () => {
		const overlap = (text: string): number | undefined => parseLocal(input({keyOverlap: text})).platform.keyOverlapMs;
		expect(overlap('24h')).toBe(86_400_000);
		expect(overlap('90s')).toBe(90_000);
		expect(overlap('500ms')).toBe(500);
		expect(overlap('1.5m')).toBe(90_000);
		expect(overlap('2d')).toBe(172_800_000);
		// A bare number is seconds in the shared duration syntax.
		expect(overlap('90')).toBe(90_000);
		for (const bad of ['', 'soon', '5 parsecs', '1h-2m']) {
			expect(() => overlap(bad)).toThrow(/--key-overlap must be a duration/);
		}
	});
});
