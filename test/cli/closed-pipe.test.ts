/**
 * `platform-tui … | head -1` as the shell runs it: the built CLI's stdout is a pipe whose reader
 * has already gone, so its first write fails with EPIPE. The run ends quietly with 141 (the status
 * `git log | head` leaves), no stack trace, in --json and plain output. The pipe is made with no
 * reader before the CLI starts (a FIFO opened for reading and writing, then its reading end
 * closed), so the write fails every time rather than when a reader happens to be slow. The runs
 * that work a while (upload, chat) are also read as `head -1` reads them: the reader closes its end
 * once the first line came, and the run, stopped mid-way, says nothing on stderr.
 */
import {execFileSync, spawn} from 'node:child_process';
import {closeSync, constants, mkdtempSync, openSync} from 'node:fs';
import {createServer, type Server, type ServerResponse} from 'node:http';
import type {AddressInfo} from 'node:net';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {openJournal} from '../../source/receiver/journal/index.js';
import {newEvent, tempDataDir} from '../receiver/journal/helpers.js';
import {childEnv, cliPath} from '../support/cli.js';
import {startPlatform, type TestPlatform} from '../support/platform.js';
import {waitFor} from '../support/wait.js';

/** A write end of a pipe that has no reader. */
function pipeWithoutReader(): number {
	const fifo = path.join(mkdtempSync(path.join(tmpdir(), 'platform-tui-fifo-')), 'out');
	execFileSync('mkfifo', [fifo]);
	// Opening for reading and writing does not block on Linux; the write end then opens at once.
	const reader = openSync(fifo, constants.O_RDWR);
	const writer = openSync(fifo, constants.O_WRONLY);
	closeSync(reader);
	return writer;
}

async function runIntoClosedPipe(args: string[], env: Record<string, string>): Promise<{code: number | null; stderr: string}> {
	const writer = pipeWithoutReader();
	const child = spawn(process.execPath, [cliPath, ...args], {env: childEnv(env), stdio: ['ignore', writer, 'pipe']});
	closeSync(writer);
	let stderr = '';
	const errors = child.stdio[2];
	errors?.setEncoding('utf8');
	errors?.on('data', (chunk: string) => {
		stderr += chunk;
	});
	const code = await new Promise<number | null>((resolve, reject) => {
		child.on('error', reject);
		child.on('close', resolve);
	});
	return {code, stderr};
}

/** Runs the built CLI with stdout read as `head -1` reads it: the reader closes its end once the first line came. */
async function runIntoHead(args: string[], env: Record<string, string | undefined> = {}, onLeft?: () => void): Promise<{code: number | null; first: string; stderr: string}> {
	const child = spawn(process.execPath, [cliPath, ...args], {env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe']});
	let first = '';
	child.stdout.setEncoding('utf8');
	child.stdout.on('data', (chunk: string) => {
		first += chunk;
		if (first.includes('\n') && !child.stdout.destroyed) {
			child.stdout.destroy();
			onLeft?.();
		}
	});
	let stderr = '';
	child.stderr.setEncoding('utf8');
	child.stderr.on('data', (chunk: string) => {
		stderr += chunk;
	});
	const code = await new Promise<number | null>((resolve, reject) => {
		child.on('error', reject);
		child.on('close', resolve);
	});
	return {code, first: first.split('\n')[0] ?? '', stderr};
}

let dataDir: string;

beforeAll(async () => {
	dataDir = tempDataDir();
	const journal = await openJournal({directory: dataDir});
	await journal.accept(newEvent());
	await journal.close();
});

describe('the built CLI writing into a pipe whose reader left', () => {
	it('version --json, config list --json, events list --json and events list end quietly with 141', async () => {
		const commands = [['version', '--json'], ['config', 'list', '--json'], ['events', 'list', '--json'], ['events', 'list']];
		const results = await Promise.all(commands.map(async args => runIntoClosedPipe(args, {PLATFORM_TUI_DATA_DIR: dataDir})));
		for (const [index, result] of results.entries()) {
			const name = commands[index]?.join(' ');
			expect(result.code, `${name}: ${result.stderr}`).toBe(141);
			expect(result.stderr, name).not.toMatch(/EPIPE|Unhandled|\n\s+at /);
		}
	});
});

describe('upload and chat read by a reader that leaves after the first line', () => {
	let platform: TestPlatform;
	let model: Server;
	let chatId: string;
	/** The model's answers, held until the test lets them go. */
	const held: ServerResponse[] = [];

	beforeAll(async () => {
		model = createServer((_request, response) => {
			held.push(response);
		});
		await new Promise<void>(resolve => {
			model.listen(0, '127.0.0.1', resolve);
		});
		platform = await startPlatform({llmUrl: `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`});
		const client = platform.client();
		chatId = (await client.createChat({title: 'Closed pipe', assistantId: platform.platform.assistantId})).id;
		await client.close();
	});

	afterAll(async () => {
		model.closeAllConnections();
		model.close();
		await platform.close();
	});

	it('upload --local --json ends with 141 and nothing on stderr', async () => {
		const run = await runIntoHead(['upload', '--local', 'test/fixtures/sample-docs', 'How long is the warranty?', '--json']);
		expect(run.first).toMatch(/^\{"type":"local-platform",/);
		expect(run.code, run.stderr).toBe(141);
		expect(run.stderr).toBe('');
	});

	it('chat --json, whose reply comes once the reader left, ends with 141 and nothing on stderr', async () => {
		// The model answers only once the reader has left after the message-sent line: the reply's lines find no reader.
		const run = await runIntoHead(['chat', chatId, 'How long is the warranty?', '--json', '--poll-interval', '0.02'], platform.env(), () => {
			void waitFor(() => held.length > 0, {what: 'the question at the model'}).then(() => {
				held.shift()?.end(JSON.stringify({choices: [{message: {content: 'The warranty lasts two years from the date of purchase.'}}]}));
			});
		});
		expect(run.first).toMatch(/^\{"type":"message-sent",/);
		expect(run.code, run.stderr).toBe(141);
		expect(run.stderr).toBe('');
	});

	it('upload --local -q, whose reply finds no reader, ends with 141 and nothing on stderr', async () => {
		const run = await runIntoClosedPipe(['upload', '--local', 'test/fixtures/sample-docs', 'How long is the warranty?', '-q'], {});
		expect(run.code, run.stderr).toBe(141);
		expect(run.stderr).toBe('');
	});
});
