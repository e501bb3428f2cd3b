import {mkdtempSync, statSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {apiKeySupplier, MissingSettingsError, requireSettings, resolveConfig} from '../../source/config/resolve.js';
import {mask} from '../../source/config/settings.js';
import {ConfigStore} from '../../source/config/store.js';
import {describeError, joinText} from '../../source/cli/error-message.js';
import {readFlag} from '../../source/cli/flag-values.js';
import {settingFlagValues} from '../../source/cli/setting-flags.js';
import {pickValue} from '../../source/config/precedence.js';

function freshEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
	return {PLATFORM_TUI_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'platform-tui-config-')), ...extra};
}

describe('resolution', () => {
	it('takes a flag over the env over the stored value', async () => {
		const env = freshEnv({PLATFORM_BASE_URL: 'http://env.example'});
		const store = new ConfigStore(env);
		await store.set('baseUrl', 'http://stored.example');
		await store.set('appId', 'app_stored');
		await store.set('userId', 'user_stored');
		env.PLATFORM_USER_ID = 'user_env';
		const resolved = resolveConfig({flags: {baseUrl: 'http://flag.example'}, env, store});
		expect(resolved.baseUrl).toEqual({value: 'http://flag.example', source: 'flag'});
		expect(resolved.userId).toEqual({value: 'user_env', source: 'env'});
		expect(resolved.appId).toEqual({value: 'app_stored', source: 'stored'});
		expect(resolved.model).toEqual({value: 'AZURE_GPT_4o_2024_1120', source: 'default'});
		expect(resolved.companyId).toBeUndefined();
	});

	it('ignores blank env values; a blank flag is refused by its declaration instead of passed over', async () => {
		const env = freshEnv({PLATFORM_APP_ID: '  '});
		const store = new ConfigStore(env);
		await store.set('appId', 'app_stored');
		expect(resolveConfig({flags: settingFlagValues({}), env, store}).appId).toEqual({value: 'app_stored', source: 'stored'});
		expect(() => settingFlagValues({appId: ' '})).toThrow('--app-id must be a non-empty value; got " ".');
	});

	it('is the one rule flag-values reads with: a typed flag wins whatever it holds, a blank env or stored value is unset', () => {
		expect(pickValue({flag: '', env: 'e', stored: 's'})).toEqual({value: '', source: 'flag'});
		expect(pickValue({env: ' ', stored: ' s '})).toEqual({value: 's', source: 'stored'});
		expect(pickValue({env: ' ', stored: '', default: 'd'})).toEqual({value: 'd', source: 'default'});
		expect(pickValue({})).toBeUndefined();
		const spec = {type: 'string', env: 'X_VALUE', default: 'fallback'} as const;
		expect(readFlag(spec, 'value', {flags: {}, env: {X_VALUE: ' '}})).toBe('fallback');
		expect(readFlag(spec, 'value', {flags: {}, env: {X_VALUE: ' from-env '}})).toBe('from-env');
		expect(() => readFlag(spec, 'value', {flags: {value: ''}, env: {X_VALUE: 'from-env'}})).toThrow('--value must be a non-empty value');
	});

	it('reads every documented env var', () => {
		const env = freshEnv({
			PLATFORM_BASE_URL: 'http://b',
			PLATFORM_API_KEY: 'sk_env_key_9999',
			PLATFORM_APP_ID: 'app',
			PLATFORM_USER_ID: 'user',
			PLATFORM_COMPANY_ID: 'company',
			PLATFORM_ASSISTANT_ID: 'assistant',
			PLATFORM_ENDPOINT_SECRET: 'whsec',
			PLATFORM_MODEL: 'MODEL_X',
		});
		const values = requireSettings(resolveConfig({env}), ['baseUrl', 'apiKey', 'appId', 'userId', 'companyId', 'assistantId', 'endpointSecret', 'model'], 'test');
		expect(values).toEqual({baseUrl: 'http://b', apiKey: 'sk_env_key_9999', appId: 'app', userId: 'user', companyId: 'company', assistantId: 'assistant', endpointSecret: 'whsec', model: 'MODEL_X'});
	});
});

describe('missing settings', () => {
	it('names every missing setting, its env var and how to store it, in one message', () => {
		const env = freshEnv({PLATFORM_BASE_URL: 'http://b'});
		let error: unknown;
		try {
			requireSettings(resolveConfig({env}), ['baseUrl', 'apiKey', 'appId', 'endpointSecret'], 'platform-tui serve');
		} catch (error_) {
			error = error_;
		}

		expect(error).toBeInstanceOf(MissingSettingsError);
		const {message, missing} = error as MissingSettingsError;
		expect(missing).toEqual(['apiKey', 'appId', 'endpointSecret']);
		expect(message).toContain('platform-tui serve needs 3 settings that are not set (apiKey, appId, endpointSecret)');
		// The core names no command; the CLI's wording (messages/config.ts) says how to set each one.
		expect(message).not.toContain('keys set');
		const worded = joinText(describeError(error));
		expect(worded).toContain('platform-tui serve needs 3 settings that are not set (apiKey, appId, endpointSecret)');
		expect(worded).toContain('apiKey: set PLATFORM_API_KEY or run `platform-tui keys set`');
		expect(worded).toContain('appId: set PLATFORM_APP_ID, pass --app-id or run `platform-tui config set appId <value>`');
		expect(worded).toContain('endpointSecret: set PLATFORM_ENDPOINT_SECRET or run `platform-tui config set endpointSecret --stdin`');
		expect(worded).not.toContain('baseUrl:');
	});
});

describe('store', () => {
	it('writes the file with mode 0600, also after a rewrite', async () => {
		const env = freshEnv();
		const store = new ConfigStore(env);
		await store.set('apiKey', 'sk_secret_key_1234');
		expect(statSync(store.path).mode & 0o777).toBe(0o600);
		await store.setMany({appId: 'app', rotation: {lastRotatedAt: '2026-01-01T00:00:00.000Z'}});
		expect(statSync(store.path).mode & 0o777).toBe(0o600);
		expect(store.path.startsWith(env.PLATFORM_TUI_CONFIG_DIR ?? '')).toBe(true);
		expect(store.rotation()).toEqual({lastRotatedAt: '2026-01-01T00:00:00.000Z'});
	});

	it('sees a value written by another writer at once', async () => {
		const env = freshEnv();
		const first = new ConfigStore(env);
		const second = new ConfigStore(env);
		await first.set('apiKey', 'sk_old_key_0001');
		expect(second.get('apiKey')).toBe('sk_old_key_0001');
		writeFileSync(first.path, JSON.stringify({apiKey: 'sk_new_key_0002'}));
		expect(second.get('apiKey')).toBe('sk_new_key_0002');
	});
});

describe('key supplier', () => {
	it('reads the stored key afresh on every call', async () => {
		const env = freshEnv();
		const store = new ConfigStore(env);
		await store.set('apiKey', 'sk_first_0001');
		const supplier = apiKeySupplier({env, fallback: 'unused'});
		expect(supplier()).toBe('sk_first_0001');
		await store.set('apiKey', 'sk_second_0002');
		expect(supplier()).toBe('sk_second_0002');
	});

	it('uses PLATFORM_API_KEY when the environment sets it', async () => {
		const env = freshEnv({PLATFORM_API_KEY: 'sk_env_0003'});
		await new ConfigStore(env).set('apiKey', 'sk_stored_0004');
		expect(apiKeySupplier({env, fallback: 'unused'})()).toBe('sk_env_0003');
	});
});

describe('masking', () => {
	it('shows only the last four characters', () => {
		expect(mask('sk_live_abcdef123456')).toBe('…3456');
		expect(mask(undefined)).toBe('(not set)');
	});
});
