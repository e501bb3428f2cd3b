/**
 * `keys rotate --dotenv PATH` run as the built CLI: a file that does not exist yet is created.
 * The flag's first name, `--env-file`, is one Node reads on its own command line (wherever it
 * stands) and exits on when the file is missing; it still reads as `--dotenv` for a file that
 * exists.
 */
import {mkdtempSync, readFileSync, statSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {runCli} from '../support/cli.js';
import {startPlatform} from '../support/platform.js';

describe('keys rotate --dotenv (built CLI)', () => {
	let platform: LocalPlatform;

	beforeAll(async () => {
		platform = (await startPlatform({keyOverlapMs: 60 * 60 * 1000})).platform;
	});

	afterAll(async () => {
		await platform.close();
	});

	/** A config folder holding the platform's current key, and the settings that point at the platform. */
	async function configured(): Promise<{dir: string; env: Record<string, string>}> {
		const dir = mkdtempSync(join(tmpdir(), 'platform-tui-dotenv-'));
		const env = {
			PLATFORM_BASE_URL: platform.baseUrl,
			PLATFORM_APP_ID: platform.appId,
			PLATFORM_USER_ID: platform.userId,
			PLATFORM_COMPANY_ID: platform.companyId,
			PLATFORM_ASSISTANT_ID: platform.assistantId,
			PLATFORM_TUI_CONFIG_DIR: dir,
		};
		expect((await runCli(['keys', 'set'], {env, input: platform.apiKey})).code).toBe(0);
		return {dir, env};
	}

	it('creates a missing file, mode 0600, holding the new key', async () => {
		const {dir, env} = await configured();
		const file = join(dir, 'receiver.env');
		const result = await runCli(['keys', 'rotate', '--yes', '--dotenv', file], {env});
		expect(result.stderr).not.toContain('not found');
		expect(result.code).toBe(0);
		expect(readFileSync(file, 'utf8')).toBe(`PLATFORM_API_KEY=${platform.apiKey}\n`);
		expect(statSync(file).mode & 0o777).toBe(0o600);
		expect(result.stderr).toContain(`Wrote PLATFORM_API_KEY=…${platform.apiKey.slice(-4)} into ${file} (mode 0600)`);
	});

	it('with --json, a missing file ends the run with its result record', async () => {
		const {dir, env} = await configured();
		const file = join(dir, 'receiver.env');
		const result = await runCli(['keys', 'rotate', '--yes', '--json', '--dotenv', file], {env});
		expect(result.code).toBe(0);
		const records = result.stdout.trim().split('\n').map(line => JSON.parse(line) as Record<string, unknown>);
		expect(records.map(record => record.type)).toEqual(['rotation', 'result']);
		expect(records[0]).toMatchObject({envFile: file, envFileWritten: true, key: `…${platform.apiKey.slice(-4)}`});
		expect(readFileSync(file, 'utf8')).toBe(`PLATFORM_API_KEY=${platform.apiKey}\n`);
	});

	it('--env-file still names the file when it exists', async () => {
		const {dir, env} = await configured();
		const file = join(dir, 'receiver.env');
		writeFileSync(file, 'OTHER=1\nPLATFORM_API_KEY=sk_stale_key_0000\n', {mode: 0o644});
		const result = await runCli(['keys', 'rotate', '--yes', '--env-file', file], {env});
		expect(result.code).toBe(0);
		expect(readFileSync(file, 'utf8')).toBe(`OTHER=1\nPLATFORM_API_KEY=${platform.apiKey}\n`);
		expect(statSync(file).mode & 0o777).toBe(0o600);
	});

	it('a file whose folder is missing is refused before the platform is called: nothing rotated, one sentence', async () => {
		const {dir, env} = await configured();
		const before = platform.apiKey;
		const file = join(dir, 'missing-folder', 'receiver.env');
		const result = await runCli(['keys', 'rotate', '--yes', '--dotenv', file], {env});
		expect(result.code).toBe(1);
		expect(result.stderr.trim().split('\n')).toEqual([
			`Error: The dotenv file ${file} cannot be written: its folder ${join(dir, 'missing-folder')} does not exist; nothing was rotated, and …${before.slice(-4)} is still the key in use. Create the folder or fix its permissions, or name another file with --dotenv, then rotate again.`,
		]);
		expect(platform.apiKey).toBe(before);
		const json = await runCli(['keys', 'rotate', '--yes', '--json', '--dotenv', file], {env});
		const last = JSON.parse(json.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
		expect(last).toMatchObject({type: 'error', code: 'env-file-unwritable'});
		expect(platform.apiKey).toBe(before);
	});
});
