/**
 * A damaged config file, a config folder that is a file or not writable, a base URL that is not a
 * URL, and the lock: each named with the file and what to do, and nothing discarded silently.
 */
import {existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, utimesSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {describeError, joinText} from '../../source/cli/error-message.js';
import configList from '../../source/commands/config/list.js';
import configPath from '../../source/commands/config/path.js';
import configSet from '../../source/commands/config/set.js';
import keysRotate from '../../source/commands/keys/rotate.js';
import keysSet from '../../source/commands/keys/set.js';
import keysShow from '../../source/commands/keys/show.js';
import {ConfigAccessError, ConfigDamagedError, ConfigLockedError, SettingInvalidError} from '../../source/config/errors.js';
import {lineColumn} from '../../source/config/file.js';
import {ConfigStore} from '../../source/config/store.js';
import {runCommand} from '../support/run-command.js';

const worded = (error: unknown) => joinText(describeError(error));

function dirWith(content?: string): {dir: string; file: string} {
	const dir = mkdtempSync(join(tmpdir(), 'platform-tui-damaged-'));
	const file = join(dir, 'config.json');
	if (content !== undefined) {
		writeFileSync(file, content, {mode: 0o600});
	}

	return {dir, file};
}

const broken = '{\n\t"baseUrl": "http://example.test",\n\t"appId": "app_1"\n\toops\n}\n';

describe('a damaged config file', () => {
	it('names the file, the line and column, and how to recover, for every command that reads it', async () => {
		const {dir, file} = dirWith(broken);
		for (const [command, argv] of [[configList, []], [keysShow, []], [configSet, ['appId', 'app_2']]] as const) {
			const result = await runCommand(command, {argv: [...argv], env: {PLATFORM_TUI_CONFIG_DIR: dir}});
			expect(result.code).toBe(1);
			expect(result.error).toBeInstanceOf(ConfigDamagedError);
			expect((result.error as ConfigDamagedError).data).toMatchObject({file, reason: 'syntax', line: 4, column: 2});
			const text = worded(result.error);
			expect(text).toContain(`The config file ${file} is not valid JSON`);
			expect(text).toContain('at line 4, column 2');
			expect(text).toContain('platform-tui keys set --force');
			expect(text).toContain('.bak');
		}

		// Nothing was written over the user's file.
		expect(readFileSync(file, 'utf8')).toBe(broken);
	});

	it('says when the file is empty, or holds something other than an object of settings', async () => {
		const empty = dirWith('  \n');
		const result = await runCommand(configList, {env: {PLATFORM_TUI_CONFIG_DIR: empty.dir}});
		expect((result.error as ConfigDamagedError).data.reason).toBe('empty');
		expect(worded(result.error)).toContain(`The config file ${empty.file} is empty`);

		const list = dirWith('[1, 2]');
		expect(worded((await runCommand(configList, {env: {PLATFORM_TUI_CONFIG_DIR: list.dir}})).error)).toContain('holds a list instead of an object of settings');

		const field = dirWith('{"apiKey": 42}');
		const fieldError = (await runCommand(keysShow, {env: {PLATFORM_TUI_CONFIG_DIR: field.dir}})).error;
		expect((fieldError as ConfigDamagedError).data).toMatchObject({reason: 'bad-field', field: 'apiKey', detail: 'a number'});
	});

	it('config path prints the path without reading the file', async () => {
		const {dir, file} = dirWith(broken);
		const result = await runCommand(configPath, {env: {PLATFORM_TUI_CONFIG_DIR: dir}});
		expect(result).toMatchObject({code: 0, stdout: `${file}\n`, stderr: ''});
	});

	it('keys set refuses a damaged file without --force, and with --force keeps it as a .bak copy', async () => {
		const {dir, file} = dirWith(broken);
		const refused = await runCommand(keysSet, {env: {PLATFORM_TUI_CONFIG_DIR: dir}, stdin: 'sk_repaired_key_4444'});
		expect(refused.code).toBe(1);
		expect(refused.error).toBeInstanceOf(ConfigDamagedError);
		expect(readFileSync(file, 'utf8')).toBe(broken);

		const forced = await runCommand(keysSet, {flags: {force: true}, env: {PLATFORM_TUI_CONFIG_DIR: dir}, stdin: 'sk_repaired_key_4444'});
		expect(forced.code).toBe(0);
		expect(forced.stdout).toContain('Stored API key …4444');
		const backups = readdirSync(dir).filter(name => name.endsWith('.bak'));
		expect(backups).toHaveLength(1);
		expect(readFileSync(join(dir, backups[0] ?? ''), 'utf8')).toBe(broken);
		expect(forced.stderr).toContain(`kept as ${join(dir, backups[0] ?? '')}`);
		expect(new ConfigStore({PLATFORM_TUI_CONFIG_DIR: dir}).all()).toEqual({apiKey: 'sk_repaired_key_4444', rotation: {keySetAt: expect.any(String) as unknown}});
	});

	it('keys set --force on a sound file changes only the key', async () => {
		const {dir} = dirWith('{"appId": "app_kept"}');
		const result = await runCommand(keysSet, {flags: {force: true}, env: {PLATFORM_TUI_CONFIG_DIR: dir}, stdin: 'sk_plain_key_5555'});
		expect(result.code).toBe(0);
		expect(new ConfigStore({PLATFORM_TUI_CONFIG_DIR: dir}).all()).toMatchObject({appId: 'app_kept', apiKey: 'sk_plain_key_5555'});
		expect(readdirSync(dir).filter(name => name.endsWith('.bak'))).toEqual([]);
	});

	it('reports line and column from a character offset', () => {
		expect(lineColumn('ab\ncd', 4)).toEqual({line: 2, column: 2});
		expect(lineColumn('', 0)).toEqual({line: 1, column: 1});
	});
});

describe('a config folder that cannot be used', () => {
	it('names the path when the folder is a file', async () => {
		const {file} = dirWith('not a folder');
		const result = await runCommand(configSet, {argv: ['appId', 'app_3'], env: {PLATFORM_TUI_CONFIG_DIR: file}});
		expect(result.code).toBe(1);
		expect(result.error).toBeInstanceOf(ConfigAccessError);
		expect((result.error as ConfigAccessError).data).toMatchObject({path: file, problem: 'not-a-directory'});
		expect(worded(result.error)).toContain(`The config folder ${file} is a file, not a folder`);
		expect(worded(result.error)).toContain('PLATFORM_TUI_CONFIG_DIR');
	});

	it('names the path when the folder cannot be written', async () => {
		// /sys refuses new folders to everyone, root included (EPERM or EACCES).
		const dir = '/sys/platform-tui-test-config';
		const result = await runCommand(configSet, {argv: ['appId', 'app_4'], env: {PLATFORM_TUI_CONFIG_DIR: dir}});
		expect(result.code).toBe(1);
		expect((result.error as ConfigAccessError).data).toMatchObject({path: dir, problem: 'not-writable', operation: 'create-folder'});
		expect(worded(result.error)).toContain(`${dir} is not writable`);
	});
});

describe('a base URL that is not a URL', () => {
	it('names the setting it came from', async () => {
		const {dir} = dirWith();
		const result = await runCommand(keysRotate, {flags: {yes: true}, env: {PLATFORM_TUI_CONFIG_DIR: dir, PLATFORM_BASE_URL: 'not a url', PLATFORM_API_KEY: 'sk_any_key_6666', PLATFORM_APP_ID: 'app', PLATFORM_USER_ID: 'user', PLATFORM_COMPANY_ID: 'company', PLATFORM_ASSISTANT_ID: 'assistant'}});
		expect(result.code).toBe(1);
		expect(result.error).toBeInstanceOf(SettingInvalidError);
		expect((result.error as SettingInvalidError).data).toMatchObject({name: 'baseUrl', source: 'env', env: 'PLATFORM_BASE_URL'});
		expect(worded(result.error)).toContain('PLATFORM_BASE_URL is not an http(s) address: "not a url".');

		const flag = await runCommand(keysRotate, {flags: {yes: true, baseUrl: 'ftp://x'}, env: {PLATFORM_TUI_CONFIG_DIR: dir, PLATFORM_API_KEY: 'sk_any_key_6666', PLATFORM_APP_ID: 'app', PLATFORM_USER_ID: 'user', PLATFORM_COMPANY_ID: 'company', PLATFORM_ASSISTANT_ID: 'assistant'}});
		expect(worded(flag.error)).toContain('--base-url is not an http(s) address: "ftp://x".');
	});
});

describe('the lock', () => {
	it('waits for a held lock, bounded, and says so; a stale lock is taken over', async () => {
		const {dir, file} = dirWith('{}');
		mkdirSync(`${file}.lock`);
		const store = new ConfigStore({PLATFORM_TUI_CONFIG_DIR: dir}, {lock: {waitMs: 200}});
		let error: unknown;
		try {
			await store.set('appId', 'app_5');
		} catch (error_) {
			error = error_;
		}

		expect(error).toBeInstanceOf(ConfigLockedError);
		expect((error as ConfigLockedError).data.waitedMs).toBeGreaterThanOrEqual(200);
		expect(worded(error)).toContain(`${file}.lock`);
		expect(store.get('appId')).toBeUndefined();

		// A lock nobody refreshed for a minute belongs to a process that died.
		const old = new Date(Date.now() - 60_000);
		utimesSync(`${file}.lock`, old, old);
		await store.set('appId', 'app_5');
		expect(store.get('appId')).toBe('app_5');
		expect(existsSync(`${file}.lock`)).toBe(false);
	});
});
