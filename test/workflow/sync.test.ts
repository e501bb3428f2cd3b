/**
 * `upload --chat`: a sync into an existing chat against the local platform — unchanged files are
 * skipped, a changed one is upserted under its key, the manifest is kept per platform and chat,
 * --dry-run makes no call, the globs and --recursive pick the keys, and an unknown chat uploads nothing.
 */
import {mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import upload from '../../source/commands/upload/upload.js';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import type {RequestRecord} from '../../source/local-platform/types.js';
import {manifestPath} from '../../source/workflow/manifest.js';
import {defined} from '../support/defined.js';
import {platformEnv, startPlatform} from '../support/platform.js';
import {runCommand} from '../support/run-command.js';
import {makeFolder} from './helpers.js';

type Upsert = {input?: {key?: string}; fileUrl?: string};

const bodyOf = (record: RequestRecord): Upsert => (record.body ?? {}) as Upsert; // eslint-disable-line @typescript-eslint/no-unnecessary-type-assertion -- the log keeps bodies as unknown
const creates = (records: RequestRecord[]): string[] => records.filter(record => record.path === '/content/upsert' && bodyOf(record).fileUrl === undefined).map(record => bodyOf(record).input?.key ?? '').sort();
const finalizes = (records: RequestRecord[]): string[] => records.filter(record => record.path === '/content/upsert' && bodyOf(record).fileUrl !== undefined).map(record => bodyOf(record).input?.key ?? '').sort();

describe('upload --chat (sync into an existing chat)', () => {
	let platform: LocalPlatform;
	let dataDir: string;
	const cleanups: Array<() => void> = [];

	beforeAll(async () => {
		platform = (await startPlatform()).platform;
	});

	afterEach(() => {
		for (const cleanup of cleanups.splice(0)) {
			cleanup();
		}
	});

	afterAll(async () => {
		await platform.close();
	});

	function setup(files: Record<string, string>): string {
		const made = makeFolder(files);
		dataDir = mkdtempSync(path.join(tmpdir(), 'platform-tui-sync-data-'));
		cleanups.push(made.cleanup, () => {
			rmSync(dataDir, {recursive: true, force: true});
		});
		return made.dir;
	}

	async function run(folder: string, flags: Record<string, unknown>, prompt = 'How long is the warranty?') {
		return runCommand(upload, {argv: [folder, prompt], flags: {pollInterval: '0.02', concurrency: '4', ...flags}, env: platformEnv(platform, {PLATFORM_TUI_DATA_DIR: dataDir})});
	}

	async function newChat(): Promise<string> {
		const client = (await import('../support/platform.js')).clientFor(platform);
		try {
			return (await client.createChat({title: 'Sync target', assistantId: platform.assistantId})).id;
		} finally {
			await client.close();
		}
	}

	const docs = {
		'warranty.txt': 'Every Aurora Mini comes with a two-year limited warranty.\n',
		'battery.txt': 'The Aurora Mini battery lasts four hours on a charge.\n',
		'notes.md': '# Notes\n\nThe projector weighs 680 grams.\n',
	};

	it('uploads every file the first time, then nothing when nothing changed, and still asks', async () => {
		const folder = setup(docs);
		const chatId = await newChat();
		const first = await run(folder, {chat: chatId, json: true});
		expect(first.stderr).toBe('');
		expect(first.code).toBe(0);

		const manifestFile = manifestPath(dataDir, platform.baseUrl, chatId);
		const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as {chatId: string; files: Record<string, {sha256: string; contentId: string; ingestionState: string; size: number}>};
		expect(manifest.chatId).toBe(chatId);
		expect(Object.keys(manifest.files).sort()).toEqual(['battery.txt', 'notes.md', 'warranty.txt']);
		expect(manifest.files['notes.md']).toMatchObject({size: docs['notes.md'].length, ingestionState: 'FINISHED'});
		expect(defined(manifest.files['notes.md']).sha256).toMatch(/^[\da-f]{64}$/);

		const start = platform.requests.length;
		const second = await run(folder, {chat: chatId, json: true});
		expect(second.stderr).toBe('');
		expect(second.code).toBe(0);
		const requests = platform.requests.slice(start);
		expect(creates(requests)).toEqual([]);
		expect(requests.some(record => record.method === 'PUT')).toBe(false);
		expect(requests.some(record => record.path === '/space/chat')).toBe(false);
		// One content search naming every manifest entry (where.id.in), and the prompt is asked.
		const searches = requests.filter(record => record.path === '/content/search');
		expect(searches).toHaveLength(1);
		expect((searches[0]?.body as {where?: {id?: {in?: string[]}}}).where?.id?.in?.toSorted()).toEqual(Object.values(manifest.files).map(entry => entry.contentId).toSorted());
		expect(requests.filter(record => record.path === '/space/message')).toHaveLength(1);
		const events = second.stdout.trim().split('\n').map(line => JSON.parse(line) as Record<string, unknown>);
		const plan = defined(events.find(event => event.type === 'sync-planned')) as {unchanged: Array<{name: string}>; upload: unknown[]; replace: unknown[]};
		expect(plan.unchanged.map(file => file.name)).toEqual(['battery.txt', 'notes.md', 'warranty.txt']);
		expect(plan.upload).toEqual([]);
		expect(plan.replace).toEqual([]);
		const result = defined(events.at(-1)) as {type: string; unchanged: string[]; contentIds: string[]; reply: string};
		expect(result.type).toBe('reply');
		expect(result.unchanged).toEqual(['battery.txt', 'notes.md', 'warranty.txt']);
		expect(result.contentIds).toEqual(['battery.txt', 'notes.md', 'warranty.txt'].map(key => defined(manifest.files[key]).contentId));
		expect(result.reply).toContain('two-year');
	});

	it('upserts one changed file under the same key and moves nothing else', async () => {
		const folder = setup(docs);
		const chatId = await newChat();
		expect((await run(folder, {chat: chatId})).code).toBe(0);
		const before = JSON.parse(readFileSync(manifestPath(dataDir, platform.baseUrl, chatId), 'utf8')) as {files: Record<string, {sha256: string; contentId: string}>};

		writeFileSync(path.join(folder, 'battery.txt'), 'The Aurora Mini battery lasts six hours on a charge.\n');
		const start = platform.requests.length;
		const second = await run(folder, {chat: chatId}, 'How long does the battery last?');
		expect(second.stderr).not.toContain('Error');
		expect(second.code).toBe(0);
		const requests = platform.requests.slice(start);
		expect(creates(requests)).toEqual(['battery.txt']);
		expect(finalizes(requests)).toEqual(['battery.txt']);
		expect(requests.filter(record => record.method === 'PUT')).toHaveLength(1);
		// Progress goes to stderr when stdout is not a terminal; the reply and the history to stdout.
		expect(second.stderr).toContain('Sync: 0 new, 1 replaced, 2 unchanged');
		expect(second.stderr).toContain('Unchanged: 2 files skipped');

		const after = JSON.parse(readFileSync(manifestPath(dataDir, platform.baseUrl, chatId), 'utf8')) as {files: Record<string, {sha256: string; contentId: string}>};
		// The platform replaced the content under its key: same id, new bytes.
		expect(after.files['battery.txt']?.contentId).toBe(before.files['battery.txt']?.contentId);
		expect(after.files['battery.txt']?.sha256).not.toBe(before.files['battery.txt']?.sha256);
		expect(after.files['warranty.txt']).toEqual(before.files['warranty.txt']);
		expect(after.files['notes.md']).toEqual(before.files['notes.md']);
		expect(platform.content(defined(after.files['battery.txt']).contentId)?.ingestionState).toBe('FINISHED');
		expect(second.stdout).toContain('six hours');
	});

	it('--dry-run lists what would happen, with sizes, and changes nothing on the platform', async () => {
		const folder = setup(docs);
		const chatId = await newChat();
		expect((await run(folder, {chat: chatId})).code).toBe(0);
		writeFileSync(path.join(folder, 'battery.txt'), 'Changed.\n');
		writeFileSync(path.join(folder, 'new.txt'), 'A new file.\n');

		const start = platform.requests.length;
		const dry = await run(folder, {chat: chatId, dryRun: true});
		expect(dry.stderr).toBe('');
		expect(dry.code).toBe(0);
		// It asks what the run would (the chat, the contents' states, the keys it holds) and changes nothing.
		expect(platform.requests.slice(start).filter(request => request.method !== 'GET' && request.path !== '/content/search')).toEqual([]);
		expect(dry.stdout).toContain(`Dry run, nothing sent: would upload 1 file (12 B), replace 1 (9 B), skip 2 unchanged`);
		expect(dry.stdout).toMatch(/ {2}upload {4}\s+12 B {2}new\.txt/);
		expect(dry.stdout).toMatch(/ {2}replace {3}\s+9 B {2}battery\.txt/);
		expect(dry.stdout).toMatch(/ {2}unchanged\s+\S+ B {2}notes\.md/);

		// Without --chat nothing is known: every file would go into a new chat; no settings needed.
		const fresh = await runCommand(upload, {argv: [folder, 'q'], flags: {dryRun: true}, env: {PLATFORM_TUI_DATA_DIR: dataDir}});
		expect(fresh.code).toBe(0);
		expect(fresh.stdout).toContain('would upload 4 files');
		expect(fresh.stdout).toContain('in a new chat');
	});

	it('picks keys with --recursive, --include and --exclude', async () => {
		const folder = setup({'a.md': 'Alpha document.\n', 'b.txt': 'Beta text.\n', 'drafts/': '', 'guides/': '', 'guides/deep/': '', '.hidden/': ''});
		writeFileSync(path.join(folder, 'drafts', 'c.md'), 'Draft.\n');
		writeFileSync(path.join(folder, 'guides', 'd.md'), 'Guide.\n');
		writeFileSync(path.join(folder, 'guides', 'deep', 'e.md'), 'Deep guide.\n');
		mkdirSync(path.join(folder, '.hidden'), {recursive: true});
		writeFileSync(path.join(folder, '.hidden', 'f.md'), 'Hidden.\n');

		const flat = await run(folder, {dryRun: true, json: true});
		const keysOf = (stdout: string): string[] => {
			const plan = stdout.trim().split('\n').map(line => JSON.parse(line) as {type: string; upload?: Array<{name: string}>}).find(event => event.type === 'sync-planned');
			return defined(plan?.upload).map(file => file.name);
		};

		expect(keysOf(flat.stdout)).toEqual(['a.md', 'b.txt']);
		const recursive = await run(folder, {dryRun: true, json: true, recursive: true});
		expect(keysOf(recursive.stdout)).toEqual(['a.md', 'b.txt', 'drafts/c.md', 'guides/d.md', 'guides/deep/e.md']);
		const narrowed = await run(folder, {dryRun: true, json: true, recursive: true, include: ['**/*.md'], exclude: ['drafts/**']});
		expect(keysOf(narrowed.stdout)).toEqual(['a.md', 'guides/d.md', 'guides/deep/e.md']);

		// A real run sends exactly those keys.
		const chatId = await newChat();
		const start = platform.requests.length;
		const real = await run(folder, {chat: chatId, recursive: true, include: ['**/*.md'], exclude: ['drafts/**']}, 'What is the deep guide?');
		expect(real.stderr).not.toContain('Error');
		expect(real.code).toBe(0);
		expect(creates(platform.requests.slice(start))).toEqual(['a.md', 'guides/d.md', 'guides/deep/e.md']);
		expect(real.stderr).toContain('Skipped 3 entries: 1 dotfile (.hidden), 2 files left out by --include/--exclude (b.txt, drafts/c.md)');
	});

	it('refuses an unknown chat id, naming it, with nothing uploaded', async () => {
		const folder = setup(docs);
		const start = platform.requests.length;
		const result = await run(folder, {chat: 'chat_doesnotexist'});
		expect(result.code).toBe(1);
		expect(result.stderr).toContain('Chat chat_doesnotexist was not found on the platform, so nothing was uploaded');
		const requests = platform.requests.slice(start);
		expect(requests.some(record => record.path === '/content/upsert' || record.method === 'PUT' || record.path === '/space/message')).toBe(false);
	});

	it('keeps the default upload free of any manifest', async () => {
		const folder = setup(docs);
		const result = await run(folder, {});
		expect(result.code).toBe(0);
		expect(result.stdout).not.toContain('Sync:');
		expect(() => readFileSync(path.join(dataDir, 'sync'))).toThrow();
	});
});
