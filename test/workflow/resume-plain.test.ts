/**
 * A plain upload (no sync flag) can be continued, against the local platform in both answer
 * modes (built CLI): killed by SIGKILL half way, the command it printed once the chat was created
 * sends only the files the killed run had not finalized, each exactly once; Ctrl+C ends with the
 * chat and that command in the `cancelled` JSON line and on stderr; a file the platform
 * refuses ends the run with the chat id and that command in the `error` JSON line; a data
 * directory it may not write stops the run before any platform call.
 */
import {spawn} from 'node:child_process';
import {chmodSync, mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import {shellQuote} from '../../source/commands/upload/resume.js';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {answerModes} from '../../source/local-platform/sparse.js';
import type {RequestRecord} from '../../source/local-platform/types.js';
import {childEnv, cliPath, collectOutput, runCli, startCli} from '../support/cli.js';
import {platformEnv, startPlatform} from '../support/platform.js';
import {unprivilegedCommand, unprivilegedHow} from '../support/unprivileged.js';
import {hangLimitMs, waitFor} from '../support/wait.js';
import {makeFolder, startProxy, upsertKey, type TestProxy} from './helpers.js';

const fileCount = 24;
const keys = Array.from({length: fileCount}, (_, index) => `doc-${String(index).padStart(2, '0')}.txt`);
const prompt = 'Which fact does doc-12\'s line hold?';

type Upsert = {input?: {key?: string; byteSize?: number}; fileUrl?: string};
/** A create is the first upsert of a file: no byteSize yet (a sparse upsert answer has no readUrl, so a finalize may lack fileUrl). */
const isCreate = (body: unknown): boolean => (body as Upsert | undefined)?.input?.byteSize === undefined;
const creates = (records: readonly RequestRecord[]): string[] => records.filter(record => record.path === '/content/upsert' && isCreate(record.body)).map(record => (record.body as Upsert).input?.key ?? '').sort();
const puts = (records: readonly RequestRecord[]): number => records.filter(record => record.method === 'PUT').length;

/** Runs a printed `platform-tui …` command through the shell, as a user pasting it would. */
async function runPrinted(command: string, env: Record<string, string | undefined>): Promise<{code: number | null; stdout: string; stderr: string}> {
	expect(command.startsWith('platform-tui upload ')).toBe(true);
	const line = `${shellQuote(process.execPath)} ${shellQuote(cliPath)} ${command.slice('platform-tui '.length)}`;
	const child = spawn('sh', ['-c', line], {env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe']});
	const output = collectOutput(child);
	const timer = setTimeout(() => child.kill('SIGKILL'), hangLimitMs);
	try {
		const code = await new Promise<number | null>(resolve => {
			child.on('close', resolve);
		});
		return {code, stdout: output.stdout(), stderr: output.stderr()};
	} finally {
		clearTimeout(timer);
	}
}

describe.each(answerModes)('a plain upload continues where it stopped (%s answers, built CLI)', answers => {
	let platform: LocalPlatform;
	let proxy: TestProxy;
	let folder: ReturnType<typeof makeFolder>;
	let dataDir: string;
	/** Upsert creates after this many are held (never answered); Infinity: none. */
	let holdAfter = Number.POSITIVE_INFINITY;
	/** The create of this key is refused with 400. */
	let refuse: string | undefined;
	let seenCreates = 0;
	const held: string[] = [];

	beforeAll(async () => {
		platform = (await startPlatform({answers})).platform;
		folder = makeFolder(Object.fromEntries(keys.map(key => [key, `Document ${key} holds fact number ${key.slice(4, 6)}.\n`])));
		proxy = await startProxy(platform, {
			hold(call) {
				const key = upsertKey(call);
				if (key === undefined || !isCreate(call.body)) {
					return false;
				}

				seenCreates++;
				if (seenCreates <= holdAfter) {
					return false;
				}

				held.push(key);
				return true;
			},
			answer(call) {
				const key = upsertKey(call);
				return key !== undefined && key === refuse ? {status: 400, body: {error: {message: `The file ${key} is refused`}}} : undefined;
			},
		});
	});

	afterEach(() => {
		holdAfter = Number.POSITIVE_INFINITY;
		refuse = undefined;
		seenCreates = 0;
		held.length = 0;
		rmSync(dataDir, {recursive: true, force: true});
	});

	afterAll(async () => {
		await proxy.close();
		await platform.close();
		folder.cleanup();
	});

	function freshDataDir(): Record<string, string | undefined> {
		dataDir = mkdtempSync(path.join(tmpdir(), 'platform-tui-resume-plain-'));
		return platformEnv(platform, {PLATFORM_BASE_URL: proxy.url, PLATFORM_TUI_DATA_DIR: dataDir});
	}

	it('SIGKILL half way, then the printed command: only the missing files are sent, each exactly once', async () => {
		const env = freshDataDir();
		holdAfter = fileCount / 2;
		const first = startCli(['upload', folder.dir, prompt, '--concurrency', '1', '--poll-interval', '0.05'], {env});
		first.child.stdin.end();
		// The 13th create is held, so exactly 12 files are finalized (and recorded) when the kill lands.
		await waitFor(() => held.length, {until: count => count > 0, what: 'the held upsert'});
		const printed = /If this run stops, continue it with: (.+)\n/.exec(first.stderr())?.[1];
		first.child.kill('SIGKILL');
		await first.closed;
		expect(first.child.signalCode).toBe('SIGKILL');
		expect(printed).toMatch(/^platform-tui upload \S+ 'Which fact does doc-12'\\''s line hold\?' --chat chat_\w+$/);

		holdAfter = Number.POSITIVE_INFINITY;
		const start = platform.requests.length;
		const second = await runPrinted(printed ?? '', env);
		expect(second.code, second.stderr).toBe(0);
		const sent = platform.requests.slice(start);
		expect(creates(sent)).toEqual(keys.slice(fileCount / 2));
		expect(puts(sent)).toBe(fileCount / 2);
		// The held create never reached the platform, so all 12 are new to the chat.
		expect(second.stderr).toMatch(new RegExp(`Sync: ${fileCount / 2} new, 0 replaced, ${fileCount / 2} unchanged`));
		expect(second.stdout).toContain('Reply');
	});

	it('Ctrl+C half way ends with the chat id and the command in the cancelled line; that command sends the rest', async () => {
		const env = freshDataDir();
		holdAfter = 8;
		const first = startCli(['upload', folder.dir, prompt, '--concurrency', '1', '--poll-interval', '0.05', '--json'], {env});
		first.child.stdin.end();
		await waitFor(() => held.length, {until: count => count > 0, what: 'the held upsert'});
		first.child.kill('SIGINT');
		expect(await first.closed).toBe(130);
		// The cancelled line names the chat and the command; the envelope's last line is the error `cancelled`.
		const printed = first.stdout().trim().split('\n').map(line => JSON.parse(line) as {type?: string; code?: string; chatId?: string; resume?: string});
		const last = printed.find(line => line.type === 'cancelled') ?? {};
		expect(printed.at(-1)).toMatchObject({type: 'error', code: 'cancelled'});
		expect(last.resume).toBe(`platform-tui upload ${folder.dir} 'Which fact does doc-12'\\''s line hold?' --chat ${last.chatId ?? ''}`);
		expect(first.stderr()).toContain(`Cancelled; in-flight requests were aborted. Chat ${last.chatId ?? ''} keeps every file sent so far; continue with: ${last.resume ?? ''}`);

		holdAfter = Number.POSITIVE_INFINITY;
		const start = platform.requests.length;
		const second = await runPrinted(last.resume ?? '', env);
		expect(second.code, second.stderr).toBe(0);
		expect(creates(platform.requests.slice(start))).toEqual(keys.slice(8));
	});

	it('a refused file ends with the chat id and the command in the error line; that command sends the rest', async () => {
		const env = freshDataDir();
		refuse = 'doc-05.txt';
		const first = await runCli(['upload', folder.dir, prompt, '--concurrency', '1', '--poll-interval', '0.05', '--json'], {env});
		expect(first.code).toBe(1);
		const lines = first.stdout.trim().split('\n').map(line => JSON.parse(line) as {type: string; chatId?: string; resume?: string; message?: string; next?: string});
		const created = lines.find(line => line.type === 'chat-created');
		const error = lines.at(-1);
		expect(error?.type).toBe('error');
		expect(error?.chatId).toBe(created?.chatId);
		expect(error?.resume).toBe(created?.resume);
		expect(error?.next).toContain(`Chat ${created?.chatId ?? ''} keeps every file sent so far; continue with: ${error?.resume ?? ''}`);
		expect(first.stderr).toContain(`continue with: ${error?.resume ?? ''}`);

		refuse = undefined;
		const start = platform.requests.length;
		const second = await runPrinted(error?.resume ?? '', env);
		expect(second.code, second.stderr).toBe(0);
		expect(creates(platform.requests.slice(start))).toEqual(keys.slice(5));
	});

	it(`a data directory it may not write stops the run before any platform call (${unprivilegedHow})`, async () => {
		const env = freshDataDir();
		chmodSync(dataDir, 0o555);
		chmodSync(folder.dir, 0o755);
		// A config folder the child may read (it holds no file: the settings come from the environment).
		const configDir = mkdtempSync(path.join(tmpdir(), 'platform-tui-resume-config-'));
		chmodSync(configDir, 0o755);
		try {
			const start = platform.requests.length;
			const [command = '', ...args] = unprivilegedCommand([process.execPath, cliPath, 'upload', folder.dir, prompt]);
			const child = spawn(command, args, {
				env: childEnv({...env, PLATFORM_BASE_URL: platform.baseUrl, PLATFORM_TUI_CONFIG_DIR: configDir}),
				stdio: ['ignore', 'pipe', 'pipe'],
			});
			const output = collectOutput(child);
			const code = await new Promise<number | null>(resolve => {
				child.on('close', resolve);
			});
			expect(code, output.stderr()).toBe(1);
			// The folder whose permission is missing: the data directory, where the manifests' folder could not be made.
			expect(output.stderr()).toMatch(new RegExp(`The data directory ${dataDir} is not writable \\(permission denied on ${dataDir}\\).*no chat was created.*PLATFORM_TUI_DATA_DIR`));
			expect(platform.requests.slice(start)).toEqual([]);
		} finally {
			chmodSync(dataDir, 0o755);
			chmodSync(folder.dir, 0o700);
			rmSync(configDir, {recursive: true, force: true});
		}
	});
});
