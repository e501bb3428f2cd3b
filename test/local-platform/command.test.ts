import {PassThrough} from 'node:stream';
import {describe, expect, it} from 'vitest';
import command, {exportLines, optionsFromFlags} from '../../source/commands/local.js';
import type {CommandContext} from '../../source/commands/legacy-types.js';
import {formatDuration, parseDuration} from '../../source/local-platform/index.js';
import {pollUntil} from './helpers.js';

type Output = {stream: PassThrough; text(): string; lines(): string[]};

function output(): Output {
	const stream = new PassThrough();
	let text = '';
	stream.on('data', (chunk: Buffer) => {
		text += chunk.toString('utf8');
	});
	return {stream, text: () => text, lines: () => text.split('\n').filter(line => line !== '')};
}

function context(flags: Record<string, unknown>, json: boolean): {context: CommandContext; stdout: Output; stderr: Output; stop: AbortController} {
	const stdout = output();
	const stderr = output();
	const stop = new AbortController();
	return {
		stdout,
		stderr,
		stop,
		context: {
			argv: [],
			flags: {host: '127.0.0.1', keyOverlap: '24h', ...flags},
			json,
			debug: false,
			interactive: false,
			stdin: new PassThrough() as unknown as NodeJS.ReadStream,
			stdout: stdout.stream as unknown as NodeJS.WriteStream,
			stderr: stderr.stream as unknown as NodeJS.WriteStream,
			env: {},
			signal: stop.signal,
		},
	};
}

const settingKeys = ['baseUrl', 'apiKey', 'appId', 'userId', 'companyId', 'assistantId', 'endpointSecret'];

describe('platform-tui local', () => {
	it('with --json prints the settings as the first line, then NDJSON log lines, and stops cleanly on abort', async () => {
		const run = context({port: 0, endpointSecret: 'whsec_cli', keyOverlap: '90s'}, true);
		const exit = command.run(run.context);
		const [first] = await pollUntil(async () => run.stdout.lines(), lines => lines.length > 0);
		const settings = JSON.parse(first!) as Record<string, string>;
		expect(Object.keys(settings)).toEqual(settingKeys);
		expect(settings.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
		expect(settings.endpointSecret).toBe('whsec_cli');

		const response = await fetch(`${settings.baseUrl}/space/${settings.assistantId}`, {
			headers: {authorization: `Bearer ${settings.apiKey}`, 'x-app-id': settings.appId!, 'x-user-id': settings.userId!, 'x-company-id': settings.companyId!},
		});
		expect(response.status).toBe(200);
		const before = Date.now();
		const rotation = await fetch(`${settings.baseUrl}/v2/keys/rotate`, {method: 'POST', headers: {authorization: `Bearer ${settings.apiKey}`}});
		const after = Date.now();
		const {old_key_expires_at: expires} = (await rotation.json()) as {old_key_expires_at: string};
		// The 90 s overlap from --key-overlap, counted from the moment of rotation.
		expect(Date.parse(expires)).toBeGreaterThanOrEqual(before + 90_000 - 1);
		expect(Date.parse(expires)).toBeLessThanOrEqual(after + 90_000);

		const lines = await pollUntil(async () => run.stdout.lines(), all => all.length >= 4);
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
		const run = context({port: 0}, false);
		const exit = command.run(run.context);
		const lines = await pollUntil(async () => run.stdout.lines(), all => all.length >= 9);
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
		const baseUrl = exports[0]!.split('=')[1]!;
		await fetch(`${baseUrl}/space/chat`, {method: 'POST'});
		const log = await pollUntil(async () => run.stderr.text(), text => text.includes('/space/chat'));
		expect(log).toMatch(/POST \/space\/chat → 401/);
		run.stop.abort('SIGINT');
		expect(await exit).toBe(0);
		expect(run.stderr.text()).toContain('Local platform stopped.');
	});

	it('maps flags to options and rejects bad values', () => {
		expect(optionsFromFlags({port: 4011, host: '127.0.0.1', keyOverlap: '1h30m', failRate: 0.2, latency: 50, seed: 3, webhookUrl: 'http://127.0.0.1:8080/webhook', llmUrl: 'http://127.0.0.1:11434/v1'})).toEqual({
			port: 4011,
			host: '127.0.0.1',
			keyOverlapMs: 5_400_000,
			failRate: 0.2,
			latencyMs: 50,
			seed: 3,
			webhookUrl: 'http://127.0.0.1:8080/webhook',
			llmUrl: 'http://127.0.0.1:11434/v1',
		});
		expect(optionsFromFlags({}).port).toBe(4010);
		expect(optionsFromFlags({appId: 'app_fixed', userId: 'user_fixed', companyId: 'company_fixed'})).toMatchObject({appId: 'app_fixed', userId: 'user_fixed', companyId: 'company_fixed'});
		expect(() => optionsFromFlags({keyOverlap: '90'})).toThrow(/--key-overlap/);
		expect(() => optionsFromFlags({failRate: 1.5})).toThrow(/--fail-rate/);
		expect(() => optionsFromFlags({latency: -1})).toThrow(/--latency/);
		expect(() => optionsFromFlags({port: 70_000})).toThrow(/--port/);
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

	it('refuses a non-loopback host', async () => {
		const run = context({port: 0, host: '0.0.0.0'}, true);
		await expect(command.run(run.context)).rejects.toThrow(/loopback/);
	});

	it('parses durations', () => {
		expect(parseDuration('24h')).toBe(86_400_000);
		expect(parseDuration('90s')).toBe(90_000);
		expect(parseDuration('500ms')).toBe(500);
		expect(parseDuration('1.5m')).toBe(90_000);
		expect(parseDuration('2d')).toBe(172_800_000);
		for (const bad of ['', '90', 'soon', '5 parsecs', '1h-2m']) {
			expect(() => parseDuration(bad)).toThrow(/Invalid duration/);
		}

		expect(formatDuration(90_000)).toBe('1m30s');
		expect(formatDuration(86_400_000)).toBe('1d');
		expect(formatDuration(500)).toBe('500ms');
	});
});
