/**
 * A sync killed half way (SIGKILL after 30 of 60 files) resumes where it stopped: the manifest
 * written after each finalize holds the 30 finished files, and the same command run again
 * uploads only the other 30.
 */
import {mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import upload from '../../source/commands/upload/upload.js';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {manifestPath} from '../../source/workflow/manifest.js';
import {startCli} from '../support/cli.js';
import {clientFor, platformEnv, startPlatform} from '../support/platform.js';
import {runCommand} from '../support/run-command.js';
import {waitFor} from '../support/wait.js';
import {makeFolder, startProxy, upsertKey, type TestProxy} from './helpers.js';

const fileCount = 60;
const keys = Array.from({length: fileCount}, (_, index) => `doc-${String(index).padStart(2, '0')}.txt`);

describe('upload --chat resumes after SIGKILL', () => {
	let platform: LocalPlatform;
	let proxy: TestProxy;
	let folder: ReturnType<typeof makeFolder>;
	let dataDir: string;
	const held: string[] = [];
	let holding = true;

	beforeAll(async () => {
		platform = (await startPlatform()).platform;
		folder = makeFolder(Object.fromEntries(keys.map(key => [key, `Document ${key} holds fact number ${key.slice(4, 6)}.\n`])));
		dataDir = mkdtempSync(path.join(tmpdir(), 'platform-tui-resume-data-'));
		let creates = 0;
		proxy = await startProxy(platform, {
			hold(call) {
				const key = upsertKey(call);
				const isCreate = key !== undefined && (call.body as {fileUrl?: unknown}).fileUrl === undefined;
				if (!holding || !isCreate) {
					return false;
				}

				creates++;
				if (creates <= 30) {
					return false;
				}

				held.push(key);
				return true;
			},
		});
	});

	afterAll(async () => {
		await proxy.close();
		await platform.close();
		folder.cleanup();
		rmSync(dataDir, {recursive: true, force: true});
	});

	it('uploads only the 30 files the killed run had not finalized', async () => {
		const client = clientFor(platform);
		const chatId = (await client.createChat({title: 'Resume', assistantId: platform.assistantId})).id;
		await client.close();
		const env = platformEnv(platform, {PLATFORM_BASE_URL: proxy.url, PLATFORM_TUI_DATA_DIR: dataDir});
		const args = ['upload', folder.dir, 'Which fact does doc-42 hold?', '--chat', chatId, '--concurrency', '1', '--poll-interval', '0.05', '--json'];

		// The 31st file's upsert is held, so the run has finalized exactly 30 files when it is killed.
		const first = startCli(args, {env});
		first.child.stdin.end();
		await waitFor(() => held.length, {until: count => count > 0, what: 'the 31st upsert'});
		first.child.kill('SIGKILL');
		await first.closed;
		expect(first.child.signalCode).toBe('SIGKILL');
		expect(held).toEqual(['doc-30.txt']);

		const manifestFile = manifestPath(dataDir, proxy.url, chatId);
		const recorded = JSON.parse(readFileSync(manifestFile, 'utf8')) as {files: Record<string, {contentId: string}>};
		expect(Object.keys(recorded.files).sort()).toEqual(keys.slice(0, 30));

		// The same command again: only the other 30 are upserted; the first 30 are unchanged.
		holding = false;
		const start = platform.requests.length;
		const second = await runCommand(upload, {argv: [folder.dir, 'Which fact does doc-42 hold?'], flags: {chat: chatId, concurrency: '4', pollInterval: '0.05', json: true}, env});
		expect(second.stderr).toBe('');
		expect(second.code).toBe(0);
		const created = platform.requests.slice(start)
			.filter(record => record.path === '/content/upsert' && (record.body as {fileUrl?: unknown}).fileUrl === undefined)
			.map(record => (record.body as {input: {key: string}}).input.key)
			.sort();
		expect(created).toEqual(keys.slice(30));
		const result = JSON.parse(second.stdout.trim().split('\n').at(-1) ?? '{}') as {type: string; unchanged: string[]; contentIds: string[]};
		expect(result.type).toBe('reply');
		expect(result.unchanged).toEqual(keys.slice(0, 30));
		expect(result.contentIds).toHaveLength(fileCount);
		const after = JSON.parse(readFileSync(manifestFile, 'utf8')) as {files: Record<string, {contentId: string}>};
		expect(Object.keys(after.files)).toHaveLength(fileCount);
	});
});
