/**
 * `check` and `chats` against the local platform: a folder synced into a chat matches it (exit 0);
 * after a change, a removal and an addition, check names each (exit 1), in plain output and
 * NDJSON; the selection flags are the upload's; and `chats` lists the synced chat from its manifest.
 */
import {mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it, onTestFinished} from 'vitest';
import check from '../../source/commands/check.js';
import chats from '../../source/commands/chats.js';
import upload from '../../source/commands/upload/upload.js';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {manifestPath} from '../../source/workflow/manifest.js';
import {clientFor, platformEnv, startPlatform} from '../support/platform.js';
import {runCommand} from '../support/run-command.js';
import {makeFolder} from './helpers.js';

const docs = {
	'warranty.txt': 'Every Aurora Mini comes with a two-year limited warranty.\n',
	'battery.txt': 'The Aurora Mini battery lasts four hours on a charge.\n',
	'notes.md': '# Notes\n\nThe projector weighs 680 grams.\n',
};

type Line = {type: string} & Record<string, unknown>;
const lines = (stdout: string): Line[] => stdout.trim().split('\n').map(line => JSON.parse(line) as Line);

describe('check and chats', () => {
	let platform: LocalPlatform;
	let dataDir: string;
	beforeAll(async () => {
		platform = (await startPlatform()).platform;
	});
	afterAll(async () => platform.close());

	/** The docs folder and a data directory of this test's own, both removed when it ends. */
	function setup(): string {
		const made = makeFolder(docs);
		dataDir = mkdtempSync(path.join(tmpdir(), 'platform-tui-check-data-'));
		onTestFinished(() => {
			made.cleanup();
			rmSync(dataDir, {recursive: true, force: true});
		});
		return made.dir;
	}

	const env = () => platformEnv(platform, {PLATFORM_TUI_DATA_DIR: dataDir});

	async function syncedChat(folder: string, flags: Record<string, unknown> = {}): Promise<string> {
		const client = clientFor(platform);
		let chatId: string;
		try {
			chatId = (await client.createChat({title: 'Check target', assistantId: platform.assistantId})).id;
		} finally {
			await client.close();
		}

		const synced = await runCommand(upload, {argv: [folder, 'How long is the warranty?'], flags: {pollInterval: '0.02', concurrency: '4', chat: chatId, ...flags}, env: env()});
		expect(synced.code, synced.stderr).toBe(0);
		return chatId;
	}

	async function runCheck(folder: string, chatId: string, flags: Record<string, unknown> = {}) {
		return runCommand(check, {argv: [folder], flags: {chat: chatId, ...flags}, env: env(), json: flags.json === true});
	}

	it('exits 0 on a synced folder, and 1 naming a change, a removal and an addition', async () => {
		const folder = setup();
		const chatId = await syncedChat(folder);

		const same = await runCheck(folder, chatId);
		expect(same.stderr).toContain(`Check: ${folder} against chat ${chatId}`);
		expect(same.stdout).toBe(`Match: ${folder} and chat ${chatId} hold the same 3 files\n`);
		expect(same.code).toBe(0);

		writeFileSync(path.join(folder, 'battery.txt'), 'The Aurora Mini battery lasts six hours on a charge.\n');
		unlinkSync(path.join(folder, 'notes.md'));
		writeFileSync(path.join(folder, 'manual.txt'), 'Press the power button for two seconds.\n');
		const start = platform.requests.length;
		const differ = await runCheck(folder, chatId);
		expect(differ.code).toBe(1);
		expect(differ.stdout.split('\n')).toEqual([
			'  changed       battery.txt  (other bytes than the chat holds)',
			'  missing       manual.txt  (not in the chat)',
			'  only on chat  notes.md  (no such file in the folder)',
			'Differ: 1 missing from the chat, 1 changed, 1 only on the chat; 1 match',
			'',
		]);
		// Reads only: the chat checked, the manifest's contents in one search, the new key looked up.
		const calls = platform.requests.slice(start);
		expect(calls.every(record => record.method === 'GET' || record.path === '/content/search')).toBe(true);
		expect(calls.filter(record => (record.body as {where?: {id?: {in?: string[]}}} | undefined)?.where?.id?.in !== undefined)).toHaveLength(1);

		const quiet = await runCheck(folder, chatId, {quiet: true});
		expect(quiet.stderr).toBe('');
		expect(quiet.stdout).toBe(differ.stdout);

		const json = await runCheck(folder, chatId, {json: true});
		expect(json.code).toBe(1);
		const records = lines(json.stdout);
		expect(records.filter(line => line.type === 'check-difference').map(line => [line.name, line.status, line.reason])).toEqual([
			['battery.txt', 'changed', 'hash'],
			['manual.txt', 'missing', 'not-uploaded'],
			['notes.md', 'only-on-chat', 'no-file'],
		]);
		expect(records.find(line => line.type === 'check')).toMatchObject({chatId, matched: 1, missing: 1, changed: 1, onlyOnChat: 1, same: false});
	});

	it('lists the folder with the upload\'s selection flags, and a deleted content is missing', async () => {
		const folder = setup();
		writeFileSync(path.join(folder, 'draft.md'), 'Not for the chat.\n');
		const chatId = await syncedChat(folder, {exclude: ['*.md']});
		expect((await runCheck(folder, chatId, {exclude: ['*.md']})).code).toBe(0);
		// Without the exclusion the .md files are in the folder and not in the chat.
		const wider = await runCheck(folder, chatId, {json: true});
		expect(lines(wider.stdout).filter(line => line.type === 'check-difference').map(line => line.name)).toEqual(['draft.md', 'notes.md']);

		const manifest = JSON.parse(readFileSync(manifestPath(dataDir, platform.baseUrl, chatId), 'utf8')) as {files: Record<string, {contentId: string}>};
		const client = clientFor(platform);
		try {
			await client.deleteContent(manifest.files['battery.txt']?.contentId ?? '', chatId);
		} finally {
			await client.close();
		}

		const after = await runCheck(folder, chatId, {json: true, exclude: ['*.md']});
		expect(after.code).toBe(1);
		expect(lines(after.stdout).filter(line => line.type === 'check-difference').map(line => line.reason)).toEqual(['content-gone']);
	});

	it('chats lists the synced chat with its folder, files, last sync and profile', async () => {
		const folder = setup();
		const chatId = await syncedChat(folder);
		const json = await runCommand(chats, {env: env(), json: true});
		expect(json.code).toBe(0);
		const [line] = lines(json.stdout);
		expect(line).toMatchObject({type: 'synced-chat', chatId, folder, files: 3, profile: 'default', baseUrl: platform.baseUrl});
		expect(String(line?.lastSync)).toMatch(/^\d{4}-\d\d-\d\dT/);

		const plain = await runCommand(chats, {env: env()});
		expect(plain.stdout.trim().split('\t')).toEqual([chatId, folder, '3', expect.stringMatching(/ UTC$/) as string, 'default']);
	});

	it('refuses check without --chat, and names an unknown chat', async () => {
		const folder = setup();
		const missing = await runCommand(check, {argv: [folder], env: env()});
		expect(missing.code).toBe(1);
		expect(missing.stderr).toContain('--chat');
		const unknown = await runCheck(folder, 'chat_does_not_exist');
		expect(unknown.code).toBe(1);
		expect(unknown.stderr).toContain('chat_does_not_exist');
	});
});
