/** keys set/show/rotate and config list/get/set/path in-process: parse (bad input → one sentence) and run. */
import {mkdtempSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import configGet from '../../source/commands/config/get.js';
import configList from '../../source/commands/config/list.js';
import configPath from '../../source/commands/config/path.js';
import configSet from '../../source/commands/config/set.js';
import {describeError, joinText} from '../../source/cli/error-message.js';
import keysRotate from '../../source/commands/keys/rotate.js';
import keysSet from '../../source/commands/keys/set.js';
import keysShow from '../../source/commands/keys/show.js';
import {UsageError} from '../../source/cli/validators.js';
import {ConfigStore} from '../../source/config/store.js';
import {KeyRotationError} from '../../source/keys/errors.js';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {startRecordingServer, type RecordingServer} from '../support/recording-server.js';
import {startPlatform} from '../support/platform.js';
import {runCommand} from '../support/run-command.js';

const worded = (error: unknown) => joinText(describeError(error));

function freshDir(): string {
	return mkdtempSync(join(tmpdir(), 'platform-tui-commands-'));
}

describe('parse', () => {
	it.each([
		[keysSet, ['sk_secret_in_argv_9Zz9'], 'not taken from the command line'],
		[keysShow, ['extra'], 'keys show takes no arguments'],
		[keysRotate, ['extra'], 'keys rotate takes no arguments'],
		[configPath, ['extra'], 'config path takes no arguments'],
		[configList, ['extra'], 'config list takes no arguments'],
		[configGet, ['colour'], 'Unknown setting "colour"'],
		[configGet, [], 'Usage: platform-tui config get <name>'],
		[configSet, ['baseUrl', 'not a url'], 'baseUrl must be an http(s) address such as https://api.example.com/public; got "not a url".'],
		[configSet, ['apiKey', 'x'], 'platform-tui keys set'],
		[configSet, ['endpointSecret', 'whsec_x'], '--stdin'],
	] as const)('%#: refuses bad input with one sentence', async (command, argv, sentence) => {
		const result = await runCommand(command, {argv: [...argv], env: {PLATFORM_TUI_CONFIG_DIR: freshDir()}});
		expect(result.code).toBe(1);
		expect(result.error).toBeInstanceOf(UsageError);
		expect(result.stderr).toContain(sentence);
		expect(result.stderr).not.toContain('9Zz9');
	});

	it('reads the flags into typed options', () => {
		expect(keysRotate.parse({argv: [], flags: {yes: true}, env: {}})).toEqual({yes: true});
		expect(keysSet.parse({argv: [], flags: {}, env: {}})).toEqual({force: false});
		expect(configSet.parse({argv: ['appId', ' app_1 '], flags: {}, env: {}})).toEqual({name: 'appId', value: 'app_1'});
		expect(configSet.parse({argv: ['endpointSecret'], flags: {stdin: true}, env: {}})).toEqual({name: 'endpointSecret', value: undefined});
	});
});

describe('run', () => {
	let platform: LocalPlatform;

	beforeAll(async () => {
		platform = (await startPlatform({keyOverlapMs: 60 * 60 * 1000})).platform;
	});

	afterAll(async () => {
		await platform.close();
	});

	it('config set / get / list / path, and endpointSecret from stdin, masked', async () => {
		const env = {PLATFORM_TUI_CONFIG_DIR: freshDir()};
		const store = new ConfigStore(env);
		// Before anything is stored the file does not exist, and the list says so rather than "Stored in".
		expect((await runCommand(configList, {env})).stderr).toBe(`No settings stored yet; ${store.path} is written by 'platform-tui config set' or 'platform-tui init'.\n`);
		expect((await runCommand(configSet, {argv: ['appId', 'app_7'], env})).stdout).toBe(`Stored appId = app_7 in ${store.path}\n`);
		expect((await runCommand(configSet, {argv: ['endpointSecret'], flags: {stdin: true}, env, stdin: 'whsec_abcd1234\n'})).stdout).toContain('endpointSecret = …1234');
		expect(store.get('endpointSecret')).toBe('whsec_abcd1234');
		expect((await runCommand(configGet, {argv: ['appId'], env})).stdout).toBe('app_7\n');
		expect(JSON.parse((await runCommand(configGet, {argv: ['endpointSecret'], env, json: true})).stdout)).toEqual({type: 'setting', name: 'endpointSecret', value: '…1234', source: 'stored'});
		const list = await runCommand(configList, {env});
		expect(list.stdout).toContain('appId\tapp_7\tstored\tPLATFORM_APP_ID\n');
		expect(list.stderr).toBe(`Stored in ${store.path}\n`);
		expect(list.stdout).not.toContain('whsec_abcd1234');
		expect((await runCommand(configPath, {env})).stdout).toBe(`${store.path}\n`);
	});

	it('keys set, show and rotate --yes: the chain of keys, masked output, exit codes', async () => {
		const dir = freshDir();
		const env = {PLATFORM_TUI_CONFIG_DIR: dir, PLATFORM_BASE_URL: platform.baseUrl, PLATFORM_APP_ID: platform.appId, PLATFORM_USER_ID: platform.userId, PLATFORM_COMPANY_ID: platform.companyId, PLATFORM_ASSISTANT_ID: platform.assistantId};
		const oldKey = platform.apiKey;
		const set = await runCommand(keysSet, {env, stdin: oldKey});
		expect(set.stdout).toContain(`Stored API key …${oldKey.slice(-4)}`);
		const rotated = await runCommand(keysRotate, {flags: {yes: true}, env, json: true});
		expect(rotated.code).toBe(0);
		const answer = JSON.parse(rotated.stdout) as Record<string, unknown>;
		expect(answer).toMatchObject({type: 'rotation', previousKey: `…${oldKey.slice(-4)}`, key: `…${platform.apiKey.slice(-4)}`, stored: true});
		expect(new ConfigStore(env).get('apiKey')).toBe(platform.apiKey);
		expect(rotated.stdout).not.toContain(platform.apiKey);
		const show = await runCommand(keysShow, {env});
		expect(show.code).toBe(0);
		expect(show.stdout).toContain(`Previous key   …${oldKey.slice(-4)} still works until`);
		expect((await runCommand(keysShow, {env: {PLATFORM_TUI_CONFIG_DIR: freshDir()}})).code).toBe(1);
	});
});

describe('keys rotate answered 500', () => {
	let server: RecordingServer;
	let baseUrl: string;

	beforeAll(async () => {
		server = await startRecordingServer();
		server.setFallback(() => ({status: 500, body: {error: 'internal error'}, headers: {'request-id': 'req_500_test'}}));
		baseUrl = server.url;
	});

	afterAll(async () => {
		await server.close();
	});

	it('does not claim the key is unchanged: says a key may have been issued and what to check', async () => {
		const env = {PLATFORM_TUI_CONFIG_DIR: freshDir(), PLATFORM_BASE_URL: baseUrl, PLATFORM_APP_ID: 'app', PLATFORM_USER_ID: 'user', PLATFORM_COMPANY_ID: 'company', PLATFORM_ASSISTANT_ID: 'assistant'};
		await new ConfigStore(env).set('apiKey', 'sk_current_key_7777');
		const result = await runCommand(keysRotate, {flags: {yes: true}, env});
		expect(result.code).toBe(1);
		expect(result.error).toBeInstanceOf(KeyRotationError);
		expect((result.error as KeyRotationError).data).toMatchObject({kind: 'platform', status: 500, maybeIssued: true, requestId: 'req_500_test'});
		const text = worded(result.error);
		expect(text).not.toContain('unchanged');
		expect(text).toContain('HTTP 500');
		expect(text).toContain('req_500_test');
		expect(text).toContain('may have issued a new key');
		expect(text).toContain('…7777');
		expect(text).toContain('platform-tui keys show');
		expect(new ConfigStore(env).get('apiKey')).toBe('sk_current_key_7777');
	});
});
