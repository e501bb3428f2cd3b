/**
 * The last line of an upload stopped by Ctrl+C or SIGTERM once its chat exists, on a profile other
 * than `default`: the `error` line (code `cancelled`) names the profile, the chat and the command
 * that continues it, and `next` says the same, as every other error line of such a run does. Each
 * run is stopped once it printed its first `file-started` line; the platform's model never
 * answers, so no run can finish first.
 */
import {mkdirSync, mkdtempSync, writeFileSync} from 'node:fs';
import {createServer, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {startCli} from '../support/cli.js';
import {startPlatform, type TestPlatform} from '../support/platform.js';
import {runCliInProcess, savedProfileEnv} from '../support/run-cli.js';
import {memoryStream} from '../support/run-command.js';
import {waitFor} from '../support/wait.js';

let platform: TestPlatform;
let model: Server;
let folder: string;
let root: string;
let profile: Record<string, string>;

beforeAll(async () => {
	model = createServer(() => undefined);
	await new Promise<void>(resolve => {
		model.listen(0, '127.0.0.1', resolve);
	});
	platform = await startPlatform({llmUrl: `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`});
	root = mkdtempSync(path.join(tmpdir(), 'platform-tui-cancel-line-'));
	folder = path.join(root, 'folder');
	mkdirSync(folder);
	for (let index = 1; index <= 40; index++) {
		writeFileSync(path.join(folder, `f${String(index).padStart(2, '0')}.txt`), `File ${index} is about the warranty.\n`);
	}

	profile = await savedProfileEnv('loc', platform.url);
});

afterAll(async () => {
	model.closeAllConnections();
	model.close();
	await platform.close();
});

function records(text: string): Array<Record<string, unknown>> {
	return text.trim().split('\n').map(line => JSON.parse(line) as Record<string, unknown>);
}

const args = (): string[] => ['upload', folder, 'What is covered?', '--concurrency', '2', '--reply-timeout', '3600', '--json'];

/** The last two lines of a stopped run: `cancelled`, then the `error` line that names what it names. */
function expectStoppedLines(stdout: string, message: string): void {
	const lines = records(stdout);
	const cancelled = lines.at(-2) ?? {};
	const chatId = String(cancelled.chatId);
	const resume = `platform-tui upload ${folder} 'What is covered?' --chat ${chatId}`;
	expect(cancelled).toEqual({type: 'cancelled', chatId: expect.stringMatching(/^chat_\w+$/) as unknown, resume});
	expect(lines.at(-1)).toMatchObject({
		type: 'error',
		code: 'cancelled',
		message,
		next: `Chat ${chatId} keeps every file sent so far; continue with: ${resume}`,
		chatId,
		resume,
		profile: 'loc',
		chatIds: [chatId],
	});
}

describe('upload --json stopped once its chat exists, on a saved profile', () => {
	it.each([['SIGINT', 130, 'Cancelled by Ctrl+C.'], ['SIGTERM', 143, 'Stopped by SIGTERM.']] as const)('%s: the error line names the profile, the chat and the resume command', async (signal, code, message) => {
		const controller = new AbortController();
		const stdout = memoryStream();
		stdout.on('data', (chunk: Buffer) => {
			if (chunk.toString('utf8').includes('"type":"file-started"')) {
				controller.abort(signal);
			}
		});
		const env = platform.env({...profile, PLATFORM_TUI_DATA_DIR: path.join(root, `data-${signal}`)});
		const result = await runCliInProcess(args(), {env, signal: controller.signal, stdout});
		expect(result.code, result.stderr).toBe(code);
		expectStoppedLines(result.stdout, message);
		expect(result.stderr).toMatch(/^Cancelled; in-flight requests were aborted\. Chat chat_\w+ keeps every file sent so far; continue with: platform-tui upload .+ --chat chat_\w+\n$/);
	});

	it('the built CLI stopped by a real SIGINT ends the same way', async () => {
		const run = startCli(args(), {env: platform.env({...profile, PLATFORM_TUI_DATA_DIR: path.join(root, 'data-process')})});
		await waitFor(() => run.stdout().includes('"type":"file-started"'), {what: 'the first file-started line'});
		run.child.kill('SIGINT');
		expect(await run.closed, run.stderr()).toBe(130);
		expectStoppedLines(run.stdout(), 'Cancelled by Ctrl+C.');
	});
});
