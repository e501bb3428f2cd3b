/**
 * `upload --chat … --dry-run` and the run that follows plan alike: both ask the platform (planSync)
 * what the chat holds. Two ways the manifest alone misleads: the manifest is not in this data
 * directory (the chat holds the keys: replace, not upload), and a content the manifest calls
 * FINISHED is gone from the platform (replace, not unchanged).
 */
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {clientFor, startPlatform, type TestPlatform} from '../support/platform.js';
import {runCliInProcess} from '../support/run-cli.js';

type Planned = {type: string; dryRun?: boolean; upload: Array<{name: string}>; replace: Array<{name: string}>; awaiting: Array<{name: string}>; unchanged: Array<{name: string}>};
type Line = {type: string; chatId?: string; contentIds?: string[]};

const root = mkdtempSync(path.join(tmpdir(), 'platform-tui-dry-run-'));
const folder = path.join(root, 'docs');
let test: TestPlatform;

beforeAll(async () => {
	test = await startPlatform();
	mkdirSync(folder, {recursive: true});
	for (const name of ['a.md', 'b.md', 'c.md']) {
		writeFileSync(path.join(folder, name), `The file ${name}.\n`);
	}
});

afterAll(async () => {
	await test.close();
	rmSync(root, {recursive: true, force: true});
});

async function upload(dataDir: string, extra: string[]): Promise<Line[]> {
	const result = await runCliInProcess(['upload', folder, 'What is here?', '--poll-interval', '0.02', '--json', ...extra], {env: test.env({PLATFORM_TUI_DATA_DIR: dataDir})});
	expect(result.code, result.stderr).toBe(0);
	return result.stdout.trim().split('\n').map(line => JSON.parse(line) as Line);
}

/** The plan's names by kind. */
function plan(lines: Line[]): Record<'upload' | 'replace' | 'awaiting' | 'unchanged', string[]> {
	const planned = lines.find(line => line.type === 'sync-planned') as Planned | undefined;
	expect(planned).toBeDefined();
	const names = (files: Array<{name: string}> | undefined) => (files ?? []).map(file => file.name).sort();
	return {upload: names(planned?.upload), replace: names(planned?.replace), awaiting: names(planned?.awaiting), unchanged: names(planned?.unchanged)};
}

async function dryRunThenRun(dataDir: string, chatId: string): Promise<{dry: ReturnType<typeof plan>; run: ReturnType<typeof plan>}> {
	const dry = plan(await upload(dataDir, ['--chat', chatId, '--dry-run']));
	const run = plan(await upload(dataDir, ['--chat', chatId]));
	return {dry, run};
}

describe('upload --dry-run plans what the run then does', () => {
	it('a chat whose manifest is in another data directory: both replace the keys the chat holds', async () => {
		const first = await upload(path.join(root, 'data-1'), []);
		const chatId = first.find(line => line.type === 'reply')?.chatId ?? '';
		const {dry, run} = await dryRunThenRun(path.join(root, 'data-2'), chatId);
		expect(run.replace).toEqual(['a.md', 'b.md', 'c.md']);
		expect(dry).toEqual(run);
	});

	it('a content the manifest calls finished but the platform lost: both replace it', async () => {
		const dataDir = path.join(root, 'data-3');
		const first = await upload(dataDir, []);
		const reply = first.find(line => line.type === 'reply');
		const chatId = reply?.chatId ?? '';
		const client = clientFor(test.platform);
		try {
			await client.deleteContent(reply?.contentIds?.[0] ?? '', chatId);
		} finally {
			await client.close();
		}

		const {dry, run} = await dryRunThenRun(dataDir, chatId);
		expect(run.replace).toHaveLength(1);
		expect(dry).toEqual(run);
	});
});
