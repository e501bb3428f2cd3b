/** serve and trigger in-process: parse (the one error style) and run against the local platform. */
import {mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {describeError} from '../../source/cli/error-message.js';
import serve from '../../source/commands/serve/serve.js';
import trigger, {chosenNote} from '../../source/commands/trigger/trigger.js';
import {UsageError} from '../../source/cli/validators.js';
import {startPlatform, type TestPlatform} from '../support/platform.js';
import {runCommand, startCommand, testEnv} from '../support/run-command.js';
import {waitFor} from '../support/wait.js';

const parseServe = (flags: Record<string, unknown>, env: Record<string, string | undefined> = {}) => serve.parse({argv: [], flags, env: testEnv(env)});

function usageError(run: () => unknown): string {
	try {
		run();
	} catch (error) {
		expect(error).toBeInstanceOf(UsageError);
		return (error as Error).message;
	}

	throw new Error('no usage error');
}

describe('serve: parse', () => {
	it('reads the flags and defaults', () => {
		expect(parseServe({}, {PLATFORM_TUI_DATA_DIR: undefined})).toEqual({port: 8080, host: '127.0.0.1', concurrency: 8, toleranceSeconds: 300, drainTimeoutMs: 25_000, retentionMs: 7 * 24 * 3600 * 1000, maxEvents: 100_000, adminHost: '127.0.0.1', maxBacklog: 10_000, forwardRetries: 5, answerDeadlineMs: 600_000, finalMessageDeadlineMs: 86_400_000});
		expect(parseServe({answerDeadline: '2m', finalMessageDeadline: '1h', retryBackoff: 250})).toMatchObject({answerDeadlineMs: 120_000, finalMessageDeadlineMs: 3_600_000, retryBackoffMs: 250});
		expect(parseServe({port: 0, dataDir: '/tmp/events', retention: '3d', maxEvents: 5000, redis: 'rediss://user:pw@redis.example:6380/1'})).toMatchObject({
			port: 0,
			dataDir: '/tmp/events',
			retentionMs: 3 * 24 * 3600 * 1000,
			maxEvents: 5000,
			redisUrl: 'rediss://user:pw@redis.example:6380/1',
		});
		expect(parseServe({}, {PLATFORM_REDIS_URL: 'redis://127.0.0.1:6379'})).toMatchObject({redisUrl: 'redis://127.0.0.1:6379'});
	});

	it('refuses bad values in the one style', () => {
		expect(usageError(() => parseServe({concurrency: 'abc'}))).toBe('--concurrency must be a whole number from 1 to 1000, e.g. --concurrency 8; got "abc".');
		expect(usageError(() => parseServe({port: 70_000}))).toBe('--port must be a whole number from 0 to 65535, e.g. --port 8080; got "70000".');
		expect(usageError(() => parseServe({retention: '1h'}))).toMatch(/^--retention must be a duration from 1d to 3650d, e\.g\. --retention 24h; got "1h"\.$/);
		expect(usageError(() => parseServe({redis: 'http://127.0.0.1:6379'}))).toBe('--redis must be a URL starting with redis:// or rediss:// (redis+cluster://host:port,host:port or redis+sentinel://host:port,host:port/mastername for a Cluster or Sentinel), e.g. --redis redis://127.0.0.1:6379; got "http://127.0.0.1:6379".');
		expect(usageError(() => parseServe({tolerance: 0}))).toMatch(/^--tolerance must be a number of seconds/);
		expect(usageError(() => parseServe({answerDeadline: 'soon'}))).toMatch(/^--answer-deadline must be a duration from 1s to 30d/);
		expect(usageError(() => parseServe({answerDeadline: '2h', finalMessageDeadline: '1h'}))).toMatch(/^--final-message-deadline must be a duration no shorter than --answer-deadline \(2h\)/);
	});
});

describe('trigger: parse', () => {
	it('reads the kind, the ids and the timeout', () => {
		expect(trigger.parse({argv: ['chosen'], flags: {chatId: 'chat_1', messageId: 'msg_1', timeout: 2}, env: testEnv()})).toMatchObject({kind: 'external-module-chosen', chatId: 'chat_1', messageId: 'msg_1', timeoutMs: 2000});
		expect(usageError(() => trigger.parse({argv: ['payment'], flags: {}, env: testEnv()}))).toContain('user-message or external-module-chosen');
		expect(usageError(() => trigger.parse({argv: ['user-message'], flags: {timeout: 'abc'}, env: testEnv()}))).toMatch(/^--timeout must be a number of seconds/);
		expect(usageError(() => trigger.parse({argv: ['user-message'], flags: {url: 'ftp://x'}, env: testEnv()}))).toMatch(/^--url must be a URL starting with http:\/\/ or https:\/\//);
	});

	it('says, for a chosen event, that the answer comes after the 200 and needs real ids', () => {
		expect(chosenNote({})).toContain('pass --chat-id and --message-id with the ids of a real chat and its assistant message');
		expect(chosenNote({chatId: 'chat_1'})).toContain('pass --message-id');
		expect(chosenNote({chatId: 'chat_1', messageId: 'msg_1'})).toBe('The 200 only acknowledges the event: the receiver answers it afterwards (see its log).');
	});
});

const start = startCommand;

describe('serve and trigger: run in-process with the journal', () => {
	let local: TestPlatform;
	let dataDir: string;

	beforeAll(async () => {
		local = await startPlatform();
		dataDir = await mkdtemp(join(tmpdir(), 'serve-journal-'));
	});

	afterAll(async () => {
		await local.close();
		await rm(dataDir, {recursive: true, force: true});
	});

	it('listens, takes a trigger, names its store; a second serve on the same data directory is refused with the pid', async () => {
		const stop = new AbortController();
		const running = start(serve, {flags: {port: 0, dataDir}, env: local.env(), signal: stop.signal});
		try {
			const listening = await waitFor(() => running.stdout(), {until: text => text.includes('"listening"') || running.stderr() !== '', what: 'serve to listen'});
			const first = JSON.parse(listening.split('\n')[0] ?? '{}') as {url: string; backend: string; dataDir: string; retention: string};
			expect(first).toMatchObject({backend: 'journal', dataDir, retention: '7d'});
			const sent = await runCommand(trigger, {argv: ['external-module-chosen'], flags: {url: `${first.url}/webhook`}, env: local.env()});
			expect(sent.code).toBe(0);
			expect(sent.stderr).toContain('the answer cannot land; pass --chat-id and --message-id');
			expect(sent.stdout).toBe('200 {"success":true}\n');
			const second = await runCommand(serve, {flags: {port: 0, dataDir}, env: local.env()});
			expect(second.code).toBe(1);
			const text = describeError(second.error);
			expect(text.message).toBe(`Another serve (process ${process.pid}) is already using the event journal in ${dataDir}.`);
			expect(text.next).toBe('Stop that one first, give this one its own directory with --data-dir DIR, or run several replicas that share the work with --redis URL.');
		} finally {
			stop.abort();
			expect(await running.done).toBe(0);
		}
	});
});
