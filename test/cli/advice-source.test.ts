/**
 * The advice after a refused key or an unreachable platform names where the value came from: the
 * PLATFORM_API_KEY variable or the stored key (`keys set`); the --base-url flag, the
 * PLATFORM_BASE_URL variable or the stored baseUrl.
 */
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {platformEnv, startPlatform, type TestPlatform} from '../support/platform.js';
import {runCliInProcess} from '../support/run-cli.js';

const root = mkdtempSync(path.join(tmpdir(), 'platform-tui-advice-'));
let test: TestPlatform;
let env: Record<string, string | undefined>;

beforeAll(async () => {
	test = await startPlatform();
	env = platformEnv(test.platform, {PLATFORM_TUI_CONFIG_DIR: path.join(root, 'config')});
});

afterAll(async () => {
	await test.close();
	rmSync(root, {recursive: true, force: true});
});

/** `chat` asks one question: its first call shows how a refused key or a closed port is advised. */
async function chat(extraEnv: Record<string, string | undefined>, flags: string[] = []) {
	return runCliInProcess(['chat', 'chat_missing', 'Hello?', ...flags], {env: {...env, ...extraEnv}});
}

describe('advice names the source of the value', () => {
	it('a refused key from PLATFORM_API_KEY: names the variable, not `keys set`', async () => {
		const result = await chat({PLATFORM_API_KEY: 'sk_live_wrong_key_000000000000'});
		expect(result.code).toBe(1);
		expect(result.stderr).toContain('HTTP 401');
		expect(result.stderr).toContain('The key comes from PLATFORM_API_KEY');
		expect(result.stderr).not.toContain('keys set');
	});

	it('a refused stored key: `keys set`', async () => {
		const stored = await runCliInProcess(['keys', 'set'], {env: {...env, PLATFORM_API_KEY: undefined}, stdin: 'sk_live_stored_wrong_0000000000\n'});
		expect(stored.code, stored.stderr).toBe(0);
		const result = await chat({PLATFORM_API_KEY: undefined});
		expect(result.stderr).toContain('HTTP 401');
		expect(result.stderr).toContain('platform-tui keys set');
		expect(result.stderr).not.toContain('PLATFORM_API_KEY');
	});

	it('an unreachable address from --base-url names the flag; from PLATFORM_BASE_URL, the variable', async () => {
		const closed = 'http://127.0.0.1:9';
		const fromFlag = await chat({}, ['--base-url', closed]);
		expect(fromFlag.code).toBe(1);
		expect(fromFlag.stderr).toContain('Check --base-url and');
		expect(fromFlag.stderr).not.toContain('PLATFORM_BASE_URL');
		const fromEnv = await chat({PLATFORM_BASE_URL: closed});
		expect(fromEnv.stderr).toContain('Check PLATFORM_BASE_URL and');
	});
});
