/**
 * `upload` reads the config file once per run (beside profiles.test.ts's counts): the settings, the
 * key-age warning, the profile its manifest records and, when it fails, the wording of its error
 * all come from that one read. The key is PLATFORM_API_KEY here: a stored key is read afresh for
 * each request (cli/deps.ts `apiKey`), so a key rotated by another process is used next.
 */
import {mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it, onTestFinished} from 'vitest';
import {manifestPath} from '../../source/workflow/manifest.js';
import {readsOf} from '../support/file-reads.js';
import {startPlatform, type TestPlatform} from '../support/platform.js';
import {runCliInProcess} from '../support/run-cli.js';
import {makeFolder} from '../workflow/helpers.js';

type Line = Record<string, unknown>;
const lines = (stdout: string): Line[] => stdout.trim().split('\n').map(line => JSON.parse(line) as Line);

describe('upload reads the config file once', () => {
	let platform: TestPlatform;
	beforeAll(async () => {
		platform = await startPlatform();
	});
	afterAll(async () => platform.close());

	/** A config file whose active profile is `staging` (`config use`), a folder to upload and a data directory, all removed at the end. */
	async function setup(): Promise<{env: Record<string, string | undefined>; file: string; folder: string; dataDir: string}> {
		const directory = mkdtempSync(join(tmpdir(), 'platform-tui-upload-reads-'));
		const folder = makeFolder({'warranty.txt': 'Every Aurora Mini comes with a two-year limited warranty.\n'});
		onTestFinished(() => {
			folder.cleanup();
			rmSync(directory, {recursive: true, force: true});
		});
		const dataDir = join(directory, 'data');
		const env = platform.env({PLATFORM_TUI_CONFIG_DIR: directory, PLATFORM_TUI_DATA_DIR: dataDir});
		for (const argv of [['--profile', 'staging', 'config', 'set', 'keyMaxAge', '90d'], ['config', 'use', 'staging']]) {
			expect((await runCliInProcess(argv, {env})).code).toBe(0);
		}

		return {env, file: join(directory, 'config.json'), folder: folder.dir, dataDir};
	}

	it('and records the profile that read chose in the chat\'s manifest', async () => {
		const {env, file, folder, dataDir} = await setup();
		let chatId = '';
		const reads = await readsOf(file, async () => {
			const run = await runCliInProcess(['upload', folder, 'How long is the warranty?', '--json', '--poll-interval', '0.02'], {env});
			expect(run.code, run.stderr).toBe(0);
			const end = lines(run.stdout).at(-1);
			expect(end).toMatchObject({type: 'result', command: 'upload', exitCode: 0, profile: 'staging'});
			chatId = String((end?.chatIds as string[] | undefined)?.[0]);
		});
		expect(reads).toBe(1);
		expect(JSON.parse(readFileSync(manifestPath(dataDir, platform.url, chatId), 'utf8'))).toMatchObject({profile: 'staging'});
	});

	it('and, refused by the platform, words the error from where that read says the key came from', async () => {
		const {env, file, folder} = await setup();
		const reads = await readsOf(file, async () => {
			const run = await runCliInProcess(['upload', folder, 'How long is the warranty?', '--json', '--poll-interval', '0.02'], {env: {...env, PLATFORM_API_KEY: 'sk_wrong_key_0000'}});
			expect(run.code).toBe(1);
			expect(lines(run.stdout).at(-1)).toMatchObject({type: 'error', code: 'platform-unauthorized', next: expect.stringContaining('The key comes from PLATFORM_API_KEY') as string, profile: 'staging'});
		});
		expect(reads).toBe(1);
	});
});
