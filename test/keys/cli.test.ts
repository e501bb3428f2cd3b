import {mkdtempSync, statSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {apiKeySupplier} from '../../source/config/resolve.js';
import {ConfigStore} from '../../source/config/store.js';
import {ManualClock, type LocalPlatform} from '../../source/local-platform/index.js';
import {startPlatform} from '../support/platform.js';
import {PlatformClient} from '../../source/platform/client.js';
import {runCli, type CliResult} from '../support/cli.js';
import {leakedKeys} from './helpers.js';

/** Every stdout/stderr of every CLI run in this file, scanned for full keys at the end. */
const outputs: string[] = [];
/** Every full key that existed during the tests. */
const fullKeys = new Set<string>();

async function cli(args: string[], options: {env?: Record<string, string | undefined>; input?: string} = {}): Promise<CliResult> {
	const result = await runCli(args, options);
	outputs.push(result.stdout, result.stderr);
	return result;
}

function configDir(): string {
	return mkdtempSync(join(tmpdir(), 'platform-tui-keys-cli-'));
}

const bearerOf = (headers: Record<string, string>) => headers.authorization?.replace(/^Bearer\s+/i, '') ?? '';

describe('platform-tui keys (built CLI)', () => {
	let platform: LocalPlatform;
	let platformEnv: Record<string, string>;

	beforeAll(async () => {
		platform = (await startPlatform({keyOverlapMs: 60 * 60 * 1000})).platform;
		fullKeys.add(platform.apiKey);
		platformEnv = {
			PLATFORM_BASE_URL: platform.baseUrl,
			PLATFORM_APP_ID: platform.appId,
			PLATFORM_USER_ID: platform.userId,
			PLATFORM_COMPANY_ID: platform.companyId,
			PLATFORM_ASSISTANT_ID: platform.assistantId,
		};
	});

	afterAll(async () => {
		await platform.close();
		for (const request of platform.requests) {
			fullKeys.add(bearerOf(request.headers));
		}

		fullKeys.delete('');
		// No full key anywhere in any output of any run (the reveal is only in the pty test).
		expect(leakedKeys(outputs, [...fullKeys])).toEqual([]);
		expect(outputs.length).toBeGreaterThan(0);
	});

	it('keys set reads the key from stdin, stores it in a 0600 file and prints it masked', async () => {
		const dir = configDir();
		const key = 'sk_test_set_from_stdin_7Q2x';
		fullKeys.add(key);
		const result = await cli(['keys', 'set'], {env: {PLATFORM_TUI_CONFIG_DIR: dir}, input: `${key}\n`});
		expect(result.code).toBe(0);
		expect(result.stdout).toContain('Stored API key …7Q2x');
		const store = new ConfigStore({PLATFORM_TUI_CONFIG_DIR: dir});
		expect(store.get('apiKey')).toBe(key);
		expect(statSync(store.path).mode & 0o777).toBe(0o600);

		const json = await cli(['keys', 'set', '--json'], {env: {PLATFORM_TUI_CONFIG_DIR: dir, PLATFORM_API_KEY: 'sk_env_override_0000'}, input: key});
		expect(json.code).toBe(0);
		expect(JSON.parse(json.stdout.split('\n')[0] ?? '')).toEqual({type: 'stored', key: '…7Q2x', path: store.path, changed: false, envOverride: true});
		expect(json.stderr).toContain('PLATFORM_API_KEY is set in the environment and overrides the stored key');
		fullKeys.add('sk_env_override_0000');
	});

	it('keys set refuses a key on the command line without echoing it, and an empty stdin', async () => {
		const dir = configDir();
		const key = 'sk_test_in_argv_should_not_echo_9Zz9';
		fullKeys.add(key);
		const argv = await cli(['keys', 'set', key], {env: {PLATFORM_TUI_CONFIG_DIR: dir}});
		expect(argv.code).toBe(1);
		expect(argv.stderr).toContain('not taken from the command line');
		expect(argv.stderr).toContain('| platform-tui keys set');
		expect(argv.stderr).not.toContain('9Zz9');

		const empty = await cli(['keys', 'set'], {env: {PLATFORM_TUI_CONFIG_DIR: dir}, input: '  \n'});
		expect(empty.code).toBe(1);
		expect(empty.stderr).toContain('No API key on standard input');
		expect(new ConfigStore({PLATFORM_TUI_CONFIG_DIR: dir}).get('apiKey')).toBeUndefined();
	});

	it('keys rotate refuses to run without --yes when not on a terminal, naming the flag, and calls nothing', async () => {
		const dir = configDir();
		const before = platform.requests.length;
		const result = await cli(['keys', 'rotate'], {env: {...platformEnv, PLATFORM_TUI_CONFIG_DIR: dir, PLATFORM_API_KEY: platform.apiKey}});
		expect(result.code).toBe(1);
		expect(result.stderr).toContain('pass --yes');
		expect(result.stdout).toBe('');
		expect(platform.requests.length).toBe(before);
	});

	it('set → rotate --yes: stores the new key before printing it masked, and the next call uses it', async () => {
		const dir = configDir();
		const env = {...platformEnv, PLATFORM_TUI_CONFIG_DIR: dir};
		const store = new ConfigStore({PLATFORM_TUI_CONFIG_DIR: dir});
		const oldKey = platform.apiKey;
		expect((await cli(['keys', 'set'], {env, input: oldKey})).code).toBe(0);

		// A long-lived client in this process, reading the key through the supplier every command uses.
		const client = new PlatformClient({...platform.settings(), apiKey: apiKeySupplier({env: {PLATFORM_TUI_CONFIG_DIR: dir}, store, fallback: oldKey}), retries: 0});
		try {
			const seen = platform.requests.length;
			await client.getSpace(platform.assistantId);
			expect(platform.requests.slice(seen).map(request => bearerOf(request.headers))).toEqual([oldKey]);

			const rotated = await cli(['keys', 'rotate', '--yes'], {env});
			expect(rotated.code).toBe(0);
			const newKey = platform.apiKey;
			fullKeys.add(newKey);
			expect(newKey).not.toBe(oldKey);
			expect(store.get('apiKey')).toBe(newKey);
			expect(statSync(store.path).mode & 0o777).toBe(0o600);
			// Piped: the progress on stderr, the result alone on stdout.
			const lines = rotated.stderr.trim().split('\n');
			expect(lines[0]).toBe(`Rotating the API key …${oldKey.slice(-4)} (stored) at ${platform.baseUrl}`);
			expect(lines[1]).toBe(`Rotated: the new key is …${newKey.slice(-4)}`);
			expect(lines[2]).toBe(`Checked: the platform accepts the new key …${newKey.slice(-4)}`);
			expect(lines[3]).toBe(`Stored the new key …${newKey.slice(-4)} in ${store.path} (mode 0600)`);
			expect(lines).toHaveLength(4);
			expect(rotated.stdout).toMatch(new RegExp(`^The previous key …${oldKey.slice(-4)} keeps working until \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC( \\(.+\\))?, (59 min \\d\\d s|1 h 00 min) from now\\.\\n$`));

			// The rotation call itself: the old key as bearer, JSON content type.
			const rotateCall = platform.requests.slice(seen).find(request => request.path === '/v2/keys/rotate');
			expect(rotateCall?.headers.authorization).toBe(`Bearer ${oldKey}`);
			// No body, but the Content-Type the contract lists for this call.
			expect(rotateCall?.headers['content-type']).toBe('application/json');
			expect(rotateCall?.headers['x-user-id']).toBe(platform.userId);

			// The long-lived client (another process than the rotation) switches at its next request.
			const after = platform.requests.length;
			await client.getSpace(platform.assistantId);
			expect(platform.requests.slice(after).map(request => bearerOf(request.headers))).toEqual([newKey]);

			// So does the next CLI process: its own call goes out with the new key.
			const show = await cli(['keys', 'show'], {env});
			expect(show.code).toBe(0);
			expect(show.stdout).toContain(`API key        …${newKey.slice(-4)} (stored in ${store.path})`);
			expect(show.stdout).toMatch(/Last rotation {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \((just now|\d+ s ago)\)/);
			expect(show.stdout).toContain(`Previous key   …${oldKey.slice(-4)} still works until`);
			expect(show.stdout).toMatch(/(59 min \d\d s|1 h 00 min) left/);

			const showJson = await cli(['keys', 'show', '--json'], {env});
			const status = JSON.parse(showJson.stdout.split('\n')[0] ?? '') as Record<string, unknown>;
			expect(status).toMatchObject({type: 'key', key: `…${newKey.slice(-4)}`, source: 'stored', previousKey: {key: `…${oldKey.slice(-4)}`, valid: true}});
			expect((status.previousKey as {remainingSeconds: number}).remainingSeconds).toBeGreaterThan(3500);

			const second = platform.requests.length;
			const again = await cli(['keys', 'rotate', '--yes', '--json'], {env});
			expect(again.code).toBe(0);
			fullKeys.add(platform.apiKey);
			// The rotate call with the stored key, then the check of the key it issued.
			expect(platform.requests.slice(second).map(request => bearerOf(request.headers))).toEqual([newKey, platform.apiKey]);
			const object = JSON.parse(again.stdout.split('\n')[0] ?? '') as Record<string, unknown>;
			expect(object).toMatchObject({
				type: 'rotation',
				key: `…${platform.apiKey.slice(-4)}`,
				previousKey: `…${newKey.slice(-4)}`,
				stored: true,
				path: store.path,
				envOverride: false,
			});
			expect(Date.parse(object.expiresAt as string)).toBeGreaterThan(Date.now());
			expect(again.stdout.trim().split('\n').map(line => (JSON.parse(line) as {type: string}).type)).toEqual(['rotation', 'result']);
		} finally {
			await client.close();
		}
	});

	it('warns when PLATFORM_API_KEY overrides the stored key and must be updated before the expiry', async () => {
		const dir = configDir();
		const oldKey = platform.apiKey;
		const result = await cli(['keys', 'rotate', '--yes'], {env: {...platformEnv, PLATFORM_TUI_CONFIG_DIR: dir, PLATFORM_API_KEY: oldKey}});
		fullKeys.add(platform.apiKey);
		expect(result.code).toBe(0);
		expect(result.stderr).toContain('(from PLATFORM_API_KEY)');
		expect(result.stderr).toMatch(/Warning: PLATFORM_API_KEY is set in the environment and overrides the stored key; update it .* before \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
		expect(new ConfigStore({PLATFORM_TUI_CONFIG_DIR: dir}).get('apiKey')).toBe(platform.apiKey);

		// keys show flags the variable as still holding the rotated-out key.
		const show = await cli(['keys', 'show'], {env: {PLATFORM_TUI_CONFIG_DIR: dir, PLATFORM_API_KEY: oldKey}});
		expect(show.stdout).toContain(`…${oldKey.slice(-4)} (from PLATFORM_API_KEY; it overrides the stored key …${platform.apiKey.slice(-4)})`);
		expect(show.stderr).toContain('PLATFORM_API_KEY still holds the key that was rotated out');
	});

	it('exits 1 with a clear message when the key was refused (expired after a short overlap)', async () => {
		// The overlap passes when the test moves the platform's clock.
		const clock = new ManualClock();
		const short = (await startPlatform({keyOverlapMs: 200, clock})).platform;
		try {
			const dir = configDir();
			const env = {PLATFORM_BASE_URL: short.baseUrl, PLATFORM_APP_ID: short.appId, PLATFORM_USER_ID: short.userId, PLATFORM_COMPANY_ID: short.companyId, PLATFORM_ASSISTANT_ID: short.assistantId, PLATFORM_TUI_CONFIG_DIR: dir};
			const oldKey = short.apiKey;
			fullKeys.add(oldKey);
			expect((await cli(['keys', 'rotate', '--yes'], {env: {...env, PLATFORM_API_KEY: oldKey}})).code).toBe(0);
			fullKeys.add(short.apiKey);
			const expiresAt = Date.parse(new ConfigStore({PLATFORM_TUI_CONFIG_DIR: dir}).rotation().previousKeyExpiresAt ?? '');
			clock.advance(expiresAt + 1 - clock.now());

			const refused = await cli(['keys', 'rotate', '--yes'], {env: {...env, PLATFORM_API_KEY: oldKey}});
			expect(refused.code).toBe(1);
			// --debug adds the request log and a stack trace, still without a full key (scanned in afterAll).
			const debug = await cli(['keys', 'rotate', '--yes', '--debug'], {env: {...env, PLATFORM_API_KEY: oldKey}});
			expect(debug.code).toBe(1);
			expect(debug.stderr).toContain(`POST /v2/keys/rotate  attempt 1  → 401`);
			expect(debug.stderr).toContain(`key …${oldKey.slice(-4)}`);
			expect(debug.stderr).toContain('KeyRotationError');
			expect(refused.stderr).toContain(`The platform refused the current key …${oldKey.slice(-4)} (PLATFORM_API_KEY) with HTTP 401`);
			expect(refused.stderr).toContain('expired or been revoked');
			expect(refused.stderr).toContain('platform-tui keys set');
			// The progress line, then the error in one sentence.
			const errorLines = refused.stderr.trim().split('\n');
			expect(errorLines).toHaveLength(2);
			expect(errorLines[0]).toMatch(/^Rotating the API key …/);
			expect(refused.stdout).toBe('');
		} finally {
			await short.close();
		}
	});

	it('exits 1 with a clear message when the platform cannot be reached', async () => {
		const gone = (await startPlatform()).platform;
		const baseUrl = gone.baseUrl;
		await gone.close();
		const dir = configDir();
		const result = await cli(['keys', 'rotate', '--yes', '--base-url', baseUrl, '--app-id', 'app'], {env: {PLATFORM_TUI_CONFIG_DIR: dir, PLATFORM_API_KEY: 'sk_unreachable_key_5555', PLATFORM_USER_ID: 'user', PLATFORM_COMPANY_ID: 'company', PLATFORM_ASSISTANT_ID: 'assistant'}});
		fullKeys.add('sk_unreachable_key_5555');
		expect(result.code).toBe(1);
		expect(result.stderr).toContain(`could not reach ${baseUrl}`);
		expect(result.stderr).toContain('…5555 is unchanged');
	});

	it('names every missing setting', async () => {
		const result = await cli(['keys', 'rotate', '--yes'], {env: {PLATFORM_TUI_CONFIG_DIR: configDir()}});
		expect(result.code).toBe(1);
		expect(result.stderr).toContain('baseUrl, apiKey, appId');
	});

	it('keys show exits 1 when no key is set, with a pointer to keys set', async () => {
		const result = await cli(['keys', 'show'], {env: {PLATFORM_TUI_CONFIG_DIR: configDir()}});
		expect(result.code).toBe(1);
		expect(result.stdout).toContain('not set; store one with `platform-tui keys set`');
	});
});
