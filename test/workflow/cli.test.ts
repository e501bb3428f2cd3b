import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {runCli, startCli} from '../support/cli.js';
import {runInPty} from '../support/pty.js';
import {platformEnv, startPlatform} from '../support/platform.js';
import {hangLimitMs, waitFor} from '../support/wait.js';
import {makeFolder, startProxy, upsertKey} from './helpers.js';

const sampleDocs = fileURLToPath(new URL('../fixtures/sample-docs', import.meta.url));
const usage = 'Usage: platform-tui upload <folder_path> <instruction_prompt>.\nRun \'platform-tui upload --help\' for usage.\n';

function envFor(platform: LocalPlatform): Record<string, string | undefined> {
	return platformEnv(platform);
}

describe('platform-tui upload (built CLI)', () => {
	let platform: LocalPlatform;
	let docs: ReturnType<typeof makeFolder>;

	beforeAll(async () => {
		platform = (await startPlatform()).platform;
		docs = makeFolder({'warranty.txt': 'Every Aurora Mini comes with a two-year limited warranty.\n', 'notes.md': '# Notes\n\nThe projector weighs 680 grams.\n'});
	});

	afterAll(async () => {
		docs.cleanup();
		await platform.close();
	});

	it.each([[[]], [['docs']]])('prints the usage line and exits 1 with %j', async args => {
		const result = await runCli(['upload', ...args]);
		expect(result.code).toBe(1);
		expect(result.stderr).toBe(usage);
		expect(result.stdout).toBe('');
	});

	it('names every missing setting', async () => {
		const result = await runCli(['upload', docs.dir, 'question'], {env: {PLATFORM_BASE_URL: platform.baseUrl}});
		expect(result.code).toBe(1);
		for (const name of ['apiKey', 'appId', 'userId', 'companyId', 'assistantId', 'PLATFORM_ASSISTANT_ID']) {
			expect(result.stderr).toContain(name);
		}
	});

	it('refuses a bad number with the flag named', async () => {
		const result = await runCli(['upload', docs.dir, 'question', '--concurrency', '0'], {env: envFor(platform)});
		expect(result.code).toBe(1);
		expect(result.stderr).toContain('--concurrency must be a whole number from 1 to 64, e.g. --concurrency 16; got "0".');
	});

	it('prints NDJSON events ending with the result under --json', async () => {
		const result = await runCli(['upload', docs.dir, 'How long is the warranty?', '--json', '--poll-interval', '0.05', '--concurrency', '1', '--title', 'CLI run'], {env: envFor(platform)});
		expect(result.stderr).toBe('');
		expect(result.code).toBe(0);
		const events = result.stdout.trim().split('\n').map(line => JSON.parse(line) as Record<string, unknown>);
		const types = events.map(event => event.type);
		expect(types[0]).toBe('files-listed');
		expect(types).toContain('space-loaded');
		expect(types).toContain('chat-created');
		expect(types).toContain('ingestion-complete');
		const reply = events.at(-2) ?? {};
		expect(Object.keys(reply)).toEqual(['type', 'chatId', 'contentIds', 'reply', 'failed']);
		expect(reply.type).toBe('reply');
		expect(reply.chatId).toMatch(/^chat_/);
		expect(reply.contentIds).toHaveLength(2);
		expect(String(reply.reply)).toContain('two-year limited warranty');
		// The envelope's last line: the result, with the ids the run touched (docs/json.md).
		expect(events.at(-1)).toEqual({type: 'result', command: 'upload', exitCode: 0, chatIds: [reply.chatId], contentIds: reply.contentIds, eventIds: []});
		const chat = platform.requests.find(record => record.path === '/space/chat' && (record.body as {title?: string}).title === 'CLI run');
		expect(chat).toBeDefined();
	});

	it('prints one plain line per event without a TTY, and errors as one sentence on stderr', async () => {
		const result = await runCli(['upload', docs.dir, 'How heavy is the projector?', '--poll-interval', '0.05'], {env: envFor(platform)});
		expect(result.code).toBe(0);
		// Piped: stdout holds the reply and the history only; the progress is on stderr.
		expect(result.stdout).toMatch(/^Reply \(.+\): \(local model\) [^\n]*680 grams[^\n]*\nHistory:\n {2}USER: How heavy is the projector\?\n {2}ASSISTANT: [^\n]+\n$/);
		const lines = result.stderr.trim().split('\n');
		expect(lines[0]).toBe(`Files: 2 in ${docs.dir} (${(lines[0] ?? '').match(/\((.+)\)/)?.[1] ?? ''}): notes.md, warranty.txt`);
		expect(lines).toContain('Ingestion: all 2 finished in ' + (lines.find(line => line.startsWith('Ingestion: all')) ?? '').slice('Ingestion: all 2 finished in '.length));
		expect(result.stdout).toMatch(/Reply \(.+\): \(local model\) .*680 grams/);
		expect(result.stdout).toMatch(/History:\n {2}USER: How heavy is the projector\?\n {2}ASSISTANT: /);

		const missing = path.join(docs.dir, 'missing');
		const failed = await runCli(['upload', missing, 'q'], {env: envFor(platform)});
		expect(failed.code).toBe(1);
		expect(failed.stderr).toBe(`Error: The folder ${missing} does not exist, so nothing was started. Pass the folder whose files should be uploaded.\n`);
		const json = await runCli(['upload', missing, 'q', '--json'], {env: envFor(platform)});
		expect(json.code).toBe(1);
		expect(JSON.parse(json.stdout.trim())).toEqual({type: 'error', code: 'folder-missing', message: `The folder ${missing} does not exist, so nothing was started.`, next: 'Pass the folder whose files should be uploaded.', chatIds: [], contentIds: [], eventIds: []});
	});

	it('runs with --local and no configuration, answering through the webhook receiver', async () => {
		const result = await runCli(['upload', '--local', sampleDocs, 'How long is the warranty?', '--poll-interval', '0.1'], {env: {}});
		expect(result.stderr).not.toContain('Error');
		expect(result.code).toBe(0);
		expect(result.stderr).toMatch(/^Local platform: http:\/\/127\.0\.0\.1:\d+, answers through the webhook receiver at http:\/\/127\.0\.0\.1:\d+\/webhook$/m);
		expect(result.stderr).toContain('modules DocumentSearch, ExternalModule');
		expect(result.stdout).toMatch(/Reply \(.+\): .*two-year limited warranty/);
	});

	it('exits 130 on SIGINT, aborting the requests in flight', async () => {
		// Requests held far past the hang limit: the run ends only by aborting them.
		platform.setFaults({latencyMs: 10 * hangLimitMs});
		try {
			const run = startCli(['upload', docs.dir, 'q'], {env: envFor(platform)});
			const {child, closed} = run;
			await waitFor(() => run.stderr().includes('Files: 2'), {what: 'the run to start'});
			await waitFor(() => platform.requests.some(record => record.status === 0), {what: 'a request in flight'});
			child.kill('SIGINT');
			const code = await Promise.race([closed, new Promise<string>(resolve => {
				setTimeout(() => {
					child.kill('SIGKILL');
					resolve('still running');
				}, hangLimitMs);
			})]);
			expect(code).toBe(130);
			expect(run.stderr()).toContain('Cancelled');
		} finally {
			platform.setFaults({latencyMs: 0});
		}
	});

	it('shows the live screen in a terminal with --local and ends with the reply', async () => {
		const session = runInPty(['upload', '--local', sampleDocs, 'How long is the warranty?', '--poll-interval', '0.1'], {env: {}});
		const {code, output} = await session.exit();
		expect(code).toBe(0);
		expect(output).toMatch(/Local platform: http:\/\/127\.0\.0\.1:\d+, answers through the webhook receiver/);
		expect(output).toContain('Local Assistant');
		expect(output).toMatch(/Chat\s+✔ chat_\w+ · Folder upload session/);
		expect(output).toMatch(/5\/5 files uploaded/);
		expect(output).toMatch(/✔ 5\/5 finished/);
		expect(output).toMatch(/✔ warranty\.txt\s+728 B\s+FINISHED/);
		// The reply and the history are printed once and wrap at the terminal width, inside their bar.
		const unwrapped = output.replaceAll(/\s*\n┃\s+/g, ' ');
		expect(unwrapped).toContain('two-year limited warranty');
		expect(unwrapped).toMatch(/History\s+USER\s+How long is the warranty\?/);
		expect(output.endsWith('\n')).toBe(true);
	});

	it('shows a failure in the red panel in a terminal and exits 1', async () => {
		const broken = makeFolder({'broken.pdf': '%PDF-1.7\nnot a real pdf\n%%EOF\n'});
		try {
			const session = runInPty(['upload', broken.dir, 'q', '--poll-interval', '0.05'], {env: envFor(platform), columns: 220});
			const {code, output} = await session.exit();
			expect(code).toBe(1);
			expect(output).toMatch(/Error: Ingestion failed for content cont_\w+ \(broken\.pdf\) with state FAILED_PARSING/);
			expect(output).toMatch(/✖ broken\.pdf\s+\d+ B\s+FAILED_PARSING/);
			expect(output).toContain('1/1 files uploaded');
			// One sentence, no stack trace and no second copy on the terminal.
			expect(output.match(/with state FAILED_PARSING\./g)).toHaveLength(1);
			expect(output).not.toMatch(/\n\s+at /);
			// The chat exists by then: the red box says how to go on in it.
			expect(output.replace(/[│\s]+/g, ' ')).toMatch(/Chat chat_\w+ keeps every file sent so far; continue with: platform-tui upload \S+ q --chat chat_\w+/);
		} finally {
			broken.cleanup();
		}
	});

	it('cancelled on q after the chat was created, the screen says how to continue in it', async () => {
		let held = 0;
		const proxy = await startProxy(platform, {
			hold(call) {
				held += upsertKey(call) === undefined ? 0 : 1;
				return upsertKey(call) !== undefined;
			},
		});
		try {
			const session = runInPty(['upload', docs.dir, 'q'], {env: platformEnv(platform, {PLATFORM_BASE_URL: proxy.url}), columns: 220});
			await session.waitFor('q or Ctrl+C to cancel');
			await waitFor(() => held, {until: count => count > 0, what: 'an upsert held'});
			session.write('q');
			const {code, output} = await session.exit();
			expect(code).toBe(130);
			expect(output).toMatch(/Cancelled; in-flight requests were aborted\. Chat chat_\w+ was created\./);
			expect(output.replace(/\s+/g, ' ')).toMatch(/Chat (chat_\w+) keeps every file sent so far; continue with: platform-tui upload \S+ q --chat \1/);
		} finally {
			await proxy.close();
		}
	});

	it('cancels cleanly on q in a terminal and exits 130', async () => {
		platform.setFaults({latencyMs: 10 * hangLimitMs});
		try {
			const session = runInPty(['upload', docs.dir, 'q'], {env: envFor(platform)});
			await session.waitFor('q or Ctrl+C to cancel');
			await waitFor(() => platform.requests.some(record => record.status === 0), {what: 'a request in flight'});
			session.write('q');
			const {code, output} = await session.exit();
			expect(code).toBe(130);
			expect(output).toContain('Cancelled; in-flight requests were aborted.');
		} finally {
			platform.setFaults({latencyMs: 0});
		}
	});
});
