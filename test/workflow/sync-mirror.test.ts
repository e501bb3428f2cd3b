/**
 * Every upload is a sync, against the local platform in both answer modes: a plain upload keeps
 * its manifest, so `--chat` afterwards sends nothing and calls every file unchanged; a key the
 * chat holds without the manifest knowing it is replaced, never new; `--delete` deletes the
 * content of a removed file (and the search no longer finds it); `--max-delete` refuses before any
 * call; `--dry-run` lists deletions; `--min-age` holds back a file being written.
 */
import {mkdtempSync, readFileSync, rmSync, unlinkSync, utimesSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import upload from '../../source/commands/upload/upload.js';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {answerModes} from '../../source/local-platform/sparse.js';
import type {RequestRecord} from '../../source/local-platform/types.js';
import {manifestPath} from '../../source/workflow/manifest.js';
import {clientFor, platformEnv, startPlatform} from '../support/platform.js';
import {runCommand} from '../support/run-command.js';
import {makeFolder, startProxy} from './helpers.js';

type Line = {type: string; [key: string]: unknown};

const lines = (stdout: string): Line[] => stdout.trim().split('\n').filter(line => line !== '').map(line => JSON.parse(line) as Line);
const ofType = (stdout: string, type: string): Line[] => lines(stdout).filter(line => line.type === type);
const puts = (records: readonly RequestRecord[]): number => records.filter(record => record.method === 'PUT').length;
const deletes = (records: readonly RequestRecord[]): string[] => records.filter(record => record.method === 'DELETE').map(record => record.path);

const docs = {
	'warranty.txt': 'Every Aurora Mini comes with a two-year limited warranty.\n',
	'battery.txt': 'The Aurora Mini battery lasts four hours on a charge.\n',
	'zebra.txt': 'The zebra migration crosses the Mara river every July.\n',
	'lantern.txt': 'The brass lantern burns whale oil for nine hours.\n',
};

describe.each(answerModes)('upload as a sync (%s answers)', answers => {
	let platform: LocalPlatform;
	const cleanups: Array<() => void> = [];

	beforeAll(async () => {
		platform = (await startPlatform({answers})).platform;
	});

	afterEach(() => {
		for (const cleanup of cleanups.splice(0)) {
			cleanup();
		}
	});

	afterAll(async () => {
		await platform.close();
	});

	function setup(): {folder: string; dataDir: string} {
		const made = makeFolder(docs);
		const dataDir = mkdtempSync(path.join(tmpdir(), 'platform-tui-mirror-data-'));
		cleanups.push(made.cleanup, () => {
			rmSync(dataDir, {recursive: true, force: true});
		});
		return {folder: made.dir, dataDir};
	}

	async function run(folder: string, dataDir: string, flags: Record<string, unknown>) {
		const start = platform.requests.length;
		const result = await runCommand(upload, {argv: [folder, 'What do these files say?'], flags: {pollInterval: '0.02', concurrency: '4', ...flags}, env: platformEnv(platform, {PLATFORM_TUI_DATA_DIR: dataDir})});
		return {...result, requests: platform.requests.slice(start)};
	}

	/** A plain upload (a new chat, no sync flag); its chat id. */
	async function plainUpload(folder: string, dataDir: string): Promise<string> {
		const first = await run(folder, dataDir, {json: true});
		expect(first.code, first.stderr).toBe(0);
		expect(puts(first.requests)).toBe(Object.keys(docs).length);
		const created = ofType(first.stdout, 'chat-created')[0];
		return String(created?.chatId);
	}

	it('a plain upload keeps its manifest: the --chat rerun sends nothing and calls every file unchanged', async () => {
		const {folder, dataDir} = setup();
		const chatId = await plainUpload(folder, dataDir);

		const again = await run(folder, dataDir, {chat: chatId, json: true});
		expect(again.code, again.stderr).toBe(0);
		expect(puts(again.requests)).toBe(0);
		expect(again.requests.filter(record => record.path === '/content/upsert')).toEqual([]);
		const plan = ofType(again.stdout, 'sync-planned')[0];
		expect(plan).toMatchObject({upload: [], replace: [], awaiting: []});
		expect((plan?.unchanged as Array<{name: string}>).map(file => file.name).sort()).toEqual(Object.keys(docs).sort());
		expect(ofType(again.stdout, 'reply')[0]?.unchanged).toEqual(Object.keys(docs).sort());
	});

	it('a key the chat holds without a manifest entry is replaced, never new', async () => {
		const {folder, dataDir} = setup();
		const chatId = await plainUpload(folder, dataDir);
		// Another machine's run: the chat holds the keys, this data directory knows nothing of them.
		const elsewhere = mkdtempSync(path.join(tmpdir(), 'platform-tui-mirror-other-'));
		cleanups.push(() => {
			rmSync(elsewhere, {recursive: true, force: true});
		});
		const other = await run(folder, elsewhere, {chat: chatId, json: true});
		expect(other.code, other.stderr).toBe(0);
		const plan = ofType(other.stdout, 'sync-planned')[0];
		expect(plan?.upload).toEqual([]);
		expect((plan?.replace as Array<{name: string}>).map(file => file.name).sort()).toEqual(Object.keys(docs).sort());
		const plain = await run(folder, elsewhere, {chat: chatId});
		expect(plain.stderr).toMatch(/Sync: 0 new, 0 replaced, 4 unchanged/);
	});

	it('--delete deletes the content of a removed file, once, and the search no longer finds it', async () => {
		const {folder, dataDir} = setup();
		const chatId = await plainUpload(folder, dataDir);
		const client = clientFor(platform);
		try {
			const search = async () => (await client.search({searchString: 'zebra migration Mara river', searchType: 'COMBINED', limit: 10, chatId})) ?? [];
			expect((await search()).some(hit => JSON.stringify(hit).includes('zebra'))).toBe(true);
			unlinkSync(path.join(folder, 'zebra.txt'));

			// Without --delete nothing is deleted; --dry-run lists the deletion and changes nothing.
			const kept = await run(folder, dataDir, {chat: chatId, json: true});
			expect(kept.code, kept.stderr).toBe(0);
			expect(deletes(kept.requests)).toEqual([]);
			const dry = await run(folder, dataDir, {chat: chatId, delete: true, dryRun: true});
			expect(dry.code, dry.stderr).toBe(0);
			expect(dry.requests.filter(request => request.method !== 'GET' && request.path !== '/content/search')).toEqual([]);
			expect(dry.stdout).toMatch(/delete 1[^\n]*\n(?:.*\n)*\s+delete\s+cont_\w+\s+zebra\.txt/);

			const mirrored = await run(folder, dataDir, {chat: chatId, delete: true, json: true});
			expect(mirrored.code, mirrored.stderr).toBe(0);
			expect(deletes(mirrored.requests)).toHaveLength(1);
			expect(ofType(mirrored.stdout, 'content-deleted').map(line => line.name)).toEqual(['zebra.txt']);
			expect(puts(mirrored.requests)).toBe(0);
			expect((await search()).some(hit => JSON.stringify(hit).includes('zebra'))).toBe(false);

			// The manifest forgot it: the next --delete run deletes nothing.
			const after = await run(folder, dataDir, {chat: chatId, delete: true, json: true});
			expect(after.code, after.stderr).toBe(0);
			expect(deletes(after.requests)).toEqual([]);
		} finally {
			await client.close();
		}
	});

	it('--max-delete 1 with two removed files refuses before any platform call, naming the count', async () => {
		const {folder, dataDir} = setup();
		const chatId = await plainUpload(folder, dataDir);
		unlinkSync(path.join(folder, 'zebra.txt'));
		unlinkSync(path.join(folder, 'lantern.txt'));
		const refused = await run(folder, dataDir, {chat: chatId, delete: true, maxDelete: '1'});
		expect(refused.code).toBe(1);
		expect(refused.stderr).toMatch(/would delete 2 contents from chat chat_\w+, more than --max-delete 1 allows; nothing was deleted or sent/);
		expect(refused.requests).toEqual([]);
	});

	it('a delete that fails stops the run and leaves the manifest entry, so the next run tries again', async () => {
		const {folder, dataDir} = setup();
		const proxy = await startProxy(platform, {
			answer: call => (call.method === 'DELETE' ? {status: 403, body: {error: 'Not allowed to delete this content'}} : undefined),
		});
		try {
			const env = platformEnv(platform, {PLATFORM_BASE_URL: proxy.url, PLATFORM_TUI_DATA_DIR: dataDir});
			const flags = {pollInterval: '0.02', json: true};
			const first = await runCommand(upload, {argv: [folder, 'What do these files say?'], flags, env});
			expect(first.code, first.stderr).toBe(0);
			const chatId = String(ofType(first.stdout, 'chat-created')[0]?.chatId);
			unlinkSync(path.join(folder, 'zebra.txt'));
			const failed = await runCommand(upload, {argv: [folder, 'What do these files say?'], flags: {...flags, chat: chatId, delete: true}, env});
			expect(failed.code).toBe(1);
			expect(failed.stderr).toMatch(/Deleting zebra\.txt \(content cont_\w+\) from chat chat_\w+ failed: .*the manifest still lists it/);
			expect(ofType(failed.stdout, 'delete-failed').map(line => line.name)).toEqual(['zebra.txt']);
			const manifest = JSON.parse(readFileSync(manifestPath(dataDir, proxy.url, chatId), 'utf8')) as {files: Record<string, unknown>};
			expect(Object.keys(manifest.files)).toContain('zebra.txt');
		} finally {
			await proxy.close();
		}
	});

	it('a platform that refuses where.id.in is asked one id at a time, and every file is still unchanged', async () => {
		const {folder, dataDir} = setup();
		const proxy = await startProxy(platform, {
			answer: call => (call.path === '/content/search' && JSON.stringify(call.body).includes('"in"') ? {status: 400, body: {error: 'where.id.in is not supported'}} : undefined),
		});
		try {
			const env = platformEnv(platform, {PLATFORM_BASE_URL: proxy.url, PLATFORM_TUI_DATA_DIR: dataDir});
			const flags = {pollInterval: '0.02', json: true};
			const first = await runCommand(upload, {argv: [folder, 'What do these files say?'], flags, env});
			expect(first.code, first.stderr).toBe(0);
			const chatId = String(ofType(first.stdout, 'chat-created')[0]?.chatId);
			const start = platform.requests.length;
			const again = await runCommand(upload, {argv: [folder, 'What do these files say?'], flags: {...flags, chat: chatId}, env});
			expect(again.code, again.stderr).toBe(0);
			const requests = platform.requests.slice(start);
			expect(puts(requests)).toBe(0);
			expect(requests.filter(record => record.path === '/content/search')).toHaveLength(Object.keys(docs).length);
			expect(ofType(again.stdout, 'reply')[0]?.unchanged).toEqual(Object.keys(docs).sort());
		} finally {
			await proxy.close();
		}
	});

	it('a platform that refuses where.key still takes the run: the labels come from the manifest alone', async () => {
		const {folder, dataDir} = setup();
		const chatId = await plainUpload(folder, dataDir);
		const proxy = await startProxy(platform, {
			answer: call => (call.path === '/content/search' && JSON.stringify(call.body).includes('"key"') ? {status: 400, body: {error: 'where.key is not supported'}} : undefined),
		});
		const elsewhere = mkdtempSync(path.join(tmpdir(), 'platform-tui-mirror-other-'));
		try {
			const env = platformEnv(platform, {PLATFORM_BASE_URL: proxy.url, PLATFORM_TUI_DATA_DIR: elsewhere});
			const other = await runCommand(upload, {argv: [folder, 'What do these files say?'], flags: {pollInterval: '0.02', json: true, chat: chatId}, env});
			expect(other.code, other.stderr).toBe(0);
			const plan = ofType(other.stdout, 'sync-planned')[0];
			expect((plan?.upload as unknown[]).length + (plan?.replace as unknown[]).length).toBe(Object.keys(docs).length);
		} finally {
			await proxy.close();
			rmSync(elsewhere, {recursive: true, force: true});
		}
	});

	it('--min-age holds back a file modified just now and names it in the Skipped line', async () => {
		const {folder, dataDir} = setup();
		const old = new Date(Date.now() - 3_600_000);
		for (const name of ['warranty.txt', 'battery.txt', 'lantern.txt']) {
			utimesSync(path.join(folder, name), old, old);
		}

		const result = await run(folder, dataDir, {minAge: '10m'});
		expect(result.code, result.stderr).toBe(0);
		expect(puts(result.requests)).toBe(3);
		expect(result.stderr).toMatch(/Skipped 1 entry: 1 file modified within --min-age \(zebra\.txt\)/);
	});
});
