import {execFileSync} from 'node:child_process';
import {chmodSync, mkdirSync, symlinkSync} from 'node:fs';
import path from 'node:path';
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import {describeError, joinText} from '../../source/cli/error-message.js';
import uploadCommand from '../../source/commands/upload/upload.js';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {checkReadable, scanFolder} from '../../source/workflow/files.js';
import {createRetryTracker} from '../../source/workflow/retries.js';
import {HistoryFetchError, UnreadableFilesError} from '../../source/workflow/errors.js';
import {runUpload, type UploadOptions} from '../../source/workflow/run-upload.js';
import {runCommand} from '../support/run-command.js';
import {platformEnv} from '../support/platform.js';
import {clientFor, startPlatform} from '../support/platform.js';
import {makeFolder, recorder, startProxy, upsertKey} from './helpers.js';

const brokenPdf = '%PDF-1.7\nnot a real pdf\n%%EOF\n';
const warranty = 'Every Aurora Mini comes with a two-year limited warranty.\n';

describe('upload: --keep-going, skipped entries, unreadable files, retries, the history after the reply', () => {
	let platform: LocalPlatform;
	const cleanups: Array<() => void | Promise<void>> = [];

	beforeAll(async () => {
		platform = (await startPlatform()).platform;
	});

	afterEach(async () => {
		for (const cleanup of cleanups.splice(0).reverse()) {
			await cleanup();
		}
	});

	afterAll(async () => {
		await platform.close();
	});

	function folder(files: Record<string, string>): string {
		const made = makeFolder(files);
		cleanups.push(made.cleanup);
		return made.dir;
	}

	function options(extra: Partial<UploadOptions> & {folder: string}, baseUrl = platform.baseUrl): UploadOptions {
		const retries = extra.retries ?? createRetryTracker();
		const client = clientFor(platform, {
			baseUrl,
			onRequest(entry) {
				retries.onRequest(entry);
			},
		});
		cleanups.push(async () => client.close());
		return {client, assistantId: platform.assistantId, prompt: 'How long is the warranty?', pollIntervalMs: 10, retries, ...extra};
	}

	it('with keep-going, leaves out a file whose ingestion failed, asks about the others and reports it', async () => {
		const dir = folder({'broken.pdf': brokenPdf, 'warranty.txt': warranty});
		const {onEvent, ofType} = recorder();
		const result = await runUpload(options({folder: dir, keepGoing: true}), onEvent);
		expect(result.failed).toEqual([{name: 'broken.pdf', contentId: expect.stringMatching(/^cont_/) as unknown, stage: 'ingestion', reason: 'FAILED_PARSING'}]);
		expect(result.files.map(file => file.name)).toEqual(['warranty.txt']);
		expect(result.reply).toContain('two-year limited warranty');
		expect(ofType('ingestion-complete')[0]).toMatchObject({total: 2, finished: 1, failed: 1});
		expect(ofType('result')[0]?.failed).toHaveLength(1);
	});

	it('runs in-process with --keep-going: the reply printed, the failure listed, exit 1', async () => {
		const dir = folder({'broken.pdf': brokenPdf, 'warranty.txt': warranty});
		const run = await runCommand(uploadCommand, {argv: [dir, 'How long is the warranty?'], flags: {keepGoing: true, pollInterval: '0.05'}, env: platformEnv(platform)});
		expect(run.code).toBe(1);
		expect(run.stdout).toMatch(/Reply \(.+\): .*two-year limited warranty/);
		expect(run.stderr).toMatch(/Done: chat chat_\w+, contents cont_\w+; 1 file left out: broken\.pdf \(ingestion: FAILED_PARSING\)/);
		expect(run.stderr).toMatch(/\n1 of 2 files were left out of chat chat_\w+; the reply covers the others\.\n$/);
		const json = await runCommand(uploadCommand, {argv: [dir, 'q'], flags: {keepGoing: true, pollInterval: '0.05'}, json: true, env: platformEnv(platform)});
		const last = JSON.parse(json.stdout.trim().split('\n').at(-1) ?? '{}') as {type: string; failed: unknown[]};
		expect(json.code).toBe(1);
		expect(last).toMatchObject({type: 'reply', failed: [{name: 'broken.pdf', stage: 'ingestion', reason: 'FAILED_PARSING'}]});
	});

	it('with keep-going, leaves out files whose upload failed (a PUT refused, an upsert refused), asks about the rest and reports them', async () => {
		const dir = folder({'a.txt': warranty, 'b.txt': 'b', 'c.txt': 'c'});
		const proxy = await startProxy(platform, {
			// b.txt: the blob store refuses the PUT; c.txt: the platform refuses the first upsert.
			rewrite: (call, _status, body, proxyUrl) => (upsertKey(call) === 'b.txt' && !(call.body as {fileUrl?: string}).fileUrl ? {...(body as object), writeUrl: `${proxyUrl}/reject-blob/b`} : body),
			answer: call => (upsertKey(call) === 'c.txt' ? {status: 400, body: {error: {message: 'Content type not allowed here', code: 'BAD_REQUEST'}}} : undefined),
		});
		cleanups.push(async () => proxy.close());
		const env = platformEnv(platform, {PLATFORM_BASE_URL: proxy.url});
		const before = platform.requests.length;
		const run = await runCommand(uploadCommand, {argv: [dir, 'How long is the warranty?'], flags: {keepGoing: true, pollInterval: '0.05', concurrency: '1'}, env});
		expect(run.code).toBe(1);
		// The run went on after b.txt: c.txt was tried, a.txt uploaded and ingested, the prompt asked.
		const calls = platform.requests.slice(before);
		expect(calls.filter(record => record.path === '/content/upsert' && (record.body as {input?: {key?: string}}).input?.key === 'a.txt')).toHaveLength(2);
		expect(calls.some(record => record.method === 'POST' && record.path === '/space/message')).toBe(true);
		expect(proxy.blobPuts).toEqual([{path: '/reject-blob/b', closedByClient: false}]);
		expect(run.stdout).toMatch(/Reply \(.+\): .*two-year limited warranty/);
		expect(run.stderr).toMatch(/Done: chat chat_\w+, contents cont_\w+; 2 files left out: b\.txt \(upload: HTTP 403 from the blob store \(Signature not valid for this blob\)\), c\.txt \(upload: HTTP 400: Content type not allowed here\)/);
		expect(run.stderr).toMatch(/\n2 of 3 files were left out of chat chat_\w+; the reply covers the others\.\n$/);

		const json = await runCommand(uploadCommand, {argv: [dir, 'q'], flags: {keepGoing: true, pollInterval: '0.05'}, json: true, env});
		expect(json.code).toBe(1);
		const last = JSON.parse(json.stdout.trim().split('\n').at(-1) ?? '{}') as {type: string; contentIds: unknown[]; failed: Array<{name: string}>};
		expect(last.type).toBe('reply');
		expect(last.contentIds).toHaveLength(1);
		// With transfers in parallel the failures are listed as they happened.
		expect(last.failed.sort((one, other) => one.name.localeCompare(other.name))).toEqual([
			{name: 'b.txt', contentId: expect.stringMatching(/^cont_/) as unknown, stage: 'upload', reason: 'HTTP 403 from the blob store (Signature not valid for this blob)'},
			{name: 'c.txt', stage: 'upload', reason: 'HTTP 400: Content type not allowed here'},
		]);
	});

	it('without keep-going, keeps the spec behaviour: the first failure stops the run (exit 1, no prompt sent)', async () => {
		const dir = folder({'broken.pdf': brokenPdf, 'warranty.txt': warranty});
		const run = await runCommand(uploadCommand, {argv: [dir, 'q'], flags: {pollInterval: '0.05'}, env: platformEnv(platform)});
		expect(run.code).toBe(1);
		expect(joinText(describeError(run.error))).toMatch(/^Ingestion failed for content cont_\w+ \(broken\.pdf\) with state FAILED_PARSING\. .*--keep-going/);
		expect(run.stdout).not.toContain('Asked:');
	});

	it('names what it skipped in one line: folders, dotfiles, symlinks to folders, FIFOs, broken symlinks', async () => {
		const dir = folder({'a.txt': 'a', '.env': 'x'});
		mkdirSync(path.join(dir, 'sub'));
		symlinkSync(path.join(dir, 'sub'), path.join(dir, 'link-to-sub'));
		symlinkSync(path.join(dir, 'gone'), path.join(dir, 'dangling'));
		execFileSync('mkfifo', [path.join(dir, 'pipe')]);
		const scan = await scanFolder(dir);
		expect(scan.files.map(file => file.name)).toEqual(['a.txt']);
		expect(scan.skipped).toEqual([
			{name: '.env', kind: 'dotfile'},
			{name: 'dangling', kind: 'broken-symlink'},
			{name: 'link-to-sub', kind: 'symlink-to-folder'},
			{name: 'pipe', kind: 'fifo'},
			{name: 'sub', kind: 'folder'},
		]);
		const run = await runCommand(uploadCommand, {argv: [dir, 'q'], flags: {pollInterval: '0.05'}, env: platformEnv(platform)});
		expect(run.code).toBe(0);
		expect(run.stderr).toContain('Skipped 5 entries: 1 dotfile (.env), 1 broken symlink (dangling), 1 symlink to a folder (link-to-sub), 1 FIFO (pipe), 1 folder (sub)\n');
	});

	it('checks that every file opens before creating anything, naming the file and the reason', async () => {
		const dir = folder({'a.txt': 'a', 'b.txt': 'b'});
		const {files} = await scanFolder(dir);
		const gone = {...files[1]!, name: 'c.txt', path: path.join(dir, 'c.txt')}; // eslint-disable-line @typescript-eslint/no-non-null-assertion -- two files were written
		const error = await checkReadable(dir, [...files, gone]).catch((error_: unknown) => error_);
		expect(error).toBeInstanceOf(UnreadableFilesError);
		expect(joinText(describeError(error))).toBe(`Cannot read 1 file in ${dir}, so nothing was created: c.txt (it disappeared). Fix the permissions, or move the file out of the folder.`);
		if (process.getuid?.() !== 0) {
			// Root opens anything, so in-process the permission case runs for other users only;
			// unreadable.test.ts runs it for root too, through the built CLI as an unprivileged user.
			chmodSync(path.join(dir, 'b.txt'), 0o000);
			const before = platform.requests.length;
			const run = await runCommand(uploadCommand, {argv: [dir, 'q'], env: platformEnv(platform)});
			expect(run.code).toBe(1);
			expect(joinText(describeError(run.error))).toContain('b.txt (permission denied)');
			expect(platform.requests.slice(before).some(record => record.path === '/space/chat')).toBe(false);
		}
	});

	it('shows a retry as an event naming the file, the wait and the status', async () => {
		let refused = 0;
		const proxy = await startProxy(platform, {
			answer: call => ((call.method === 'POST' && call.path === '/content/upsert' && (call.body as {input?: {key?: string}}).input?.key === 'b.txt' && refused++ === 0) ? {status: 429, body: {error: 'Slow down'}} : undefined),
		});
		cleanups.push(async () => proxy.close());
		const {onEvent, ofType} = recorder();
		await runUpload(options({folder: folder({'a.txt': 'a', 'b.txt': 'b'})}, proxy.url), onEvent);
		expect(ofType('retry')).toEqual([{type: 'retry', file: 'b.txt', operation: 'POST /content/upsert', attempt: 1, retryInMs: expect.any(Number) as unknown, reason: 'HTTP 429'}]);
	});

	it('after the reply arrived, a failing history fetch shows the reply, then the history error', async () => {
		const proxy = await startProxy(platform, {
			answer: call => (call.method === 'GET' && /^\/space\/chat\/[^/]+\/messages$/.test(call.path) ? {status: 404, body: {error: 'Chat history is gone'}} : undefined),
		});
		cleanups.push(async () => proxy.close());
		const {onEvent, ofType, events} = recorder();
		const error = await runUpload(options({folder: folder({'warranty.txt': warranty})}, proxy.url), onEvent).catch((error_: unknown) => error_);
		expect(error).toBeInstanceOf(HistoryFetchError);
		expect(ofType('reply-complete')[0]?.text).toContain('two-year limited warranty');
		expect(events.at(-1)?.type).toBe('reply-complete');
		expect(joinText(describeError(error))).toMatch(/^The reply is above, but the history of chat chat_\w+ could not be fetched: .*Chat history is gone/);
	});
});
