/**
 * `keys rotate` against full and sparse answers: a rotation answer holds `new_key` and
 * `old_key_expires_at` and nothing else in sparse mode, and the call carries the headers the
 * contract lists (Content-Type: application/json although there is no body).
 */
import {statSync} from 'node:fs';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import rotateCommand from '../../source/commands/keys/rotate.js';
import {ConfigStore} from '../../source/config/store.js';
import type {AnswerMode, LocalPlatform} from '../../source/local-platform/index.js';
import {clientFor, platformEnv, startPlatform} from '../support/platform.js';
import {runCommand, testEnv} from '../support/run-command.js';

describe.each(['full', 'sparse'] as AnswerMode[])('keys rotate with %s answers', answers => {
	let platform: LocalPlatform;

	beforeAll(async () => {
		platform = (await startPlatform({answers, keyOverlapMs: 60 * 60 * 1000})).platform;
	});

	afterAll(async () => {
		await platform.close();
	});

	it('rotates, stores the new key (0600) with its overlap, and the new key works', async () => {
		const env = platformEnv(platform, {PLATFORM_API_KEY: undefined});
		const dirs = testEnv(env);
		const store = new ConfigStore(dirs);
		const oldKey = platform.apiKey;
		await store.set('apiKey', oldKey);
		const seen = platform.requests.length;
		const result = await runCommand(rotateCommand, {flags: {yes: true, json: true}, env: {...env, PLATFORM_TUI_CONFIG_DIR: dirs.PLATFORM_TUI_CONFIG_DIR}});
		expect(result.stderr).toBe('');
		expect(result.code).toBe(0);
		const newKey = platform.apiKey;
		expect(newKey).not.toBe(oldKey);
		expect(store.get('apiKey')).toBe(newKey);
		expect(statSync(store.path).mode & 0o777).toBe(0o600);
		const printed = result.stdout.trim().split('\n').map(line => JSON.parse(line) as Record<string, unknown>);
		expect(printed.at(-1)).toMatchObject({stored: true});
		expect(JSON.stringify(printed)).toContain('"expiresAt":"');
		const rotateCall = platform.requests.slice(seen).find(request => request.path === '/v2/keys/rotate');
		expect(rotateCall?.headers['content-type']).toBe('application/json');
		expect(rotateCall?.headers.authorization).toBe(`Bearer ${oldKey}`);
		expect(rotateCall?.status).toBe(200);
		const client = clientFor(platform, {apiKey: newKey});
		try {
			await expect(client.getSpace(platform.assistantId)).resolves.toBeDefined();
		} finally {
			await client.close();
		}
	});
});
