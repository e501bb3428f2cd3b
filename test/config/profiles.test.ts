/**
 * Profiles (docs/configuration.md): named sets of settings and keys in the one config file, chosen
 * with --profile (anywhere on the line), PLATFORM_PROFILE or `config use`; the file's top level is
 * the profile `default`, so a file written before profiles is read (and written) unchanged.
 */
import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {ConfigStore} from '../../source/config/store.js';
import {readsOf} from '../support/file-reads.js';
import {runCliInProcess} from '../support/run-cli.js';

const keyA = 'sk_default_key_AAAA';
const keyB = 'sk_staging_key_BBBB';

function configDir(): {env: Record<string, string>; file: string} {
	const directory = mkdtempSync(join(tmpdir(), 'platform-tui-profiles-'));
	return {env: {PLATFORM_TUI_CONFIG_DIR: directory}, file: join(directory, 'config.json')};
}

function lines(stdout: string): Array<Record<string, unknown>> {
	return stdout.trim().split('\n').map(line => JSON.parse(line) as Record<string, unknown>);
}

/** A config with the default profile and `staging`, made through the commands. */
async function twoProfiles(): Promise<{env: Record<string, string>; file: string}> {
	const dir = configDir();
	for (const argv of [['config', 'set', 'baseUrl', 'https://prod.example.com'], ['--profile', 'staging', 'config', 'set', 'baseUrl', 'https://staging.example.com']]) {
		expect((await runCliInProcess(argv, {env: dir.env})).code).toBe(0);
	}

	expect((await runCliInProcess(['keys', 'set'], {env: dir.env, stdin: keyA})).code).toBe(0);
	expect((await runCliInProcess(['keys', 'set', '--profile', 'staging'], {env: dir.env, stdin: keyB})).code).toBe(0);
	return dir;
}

describe('an old single-profile config file', () => {
	const old = {baseUrl: 'https://old.example.com', apiKey: 'sk_old_key_1234', appId: 'app_old', rotation: {keySetAt: '2026-01-01T00:00:00.000Z'}};

	it('is read unchanged as the profile default, and stays that shape when only default is written', async () => {
		const {env, file} = configDir();
		writeFileSync(file, JSON.stringify(old), {mode: 0o600});
		expect(new ConfigStore(env).all()).toEqual(old);
		const listed = await runCliInProcess(['config', 'profiles', '--json'], {env});
		expect(lines(listed.stdout)[0]).toEqual({type: 'profile', name: 'default', active: true, baseUrl: old.baseUrl, key: '…1234', keySetAt: old.rotation.keySetAt, keyAgeSeconds: expect.any(Number) as number});
		expect((await runCliInProcess(['config', 'set', 'model', 'm1'], {env})).code).toBe(0);
		expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({...old, model: 'm1'});
	});

	it('keeps its default settings at the top level when a second profile appears, where an older platform-tui reads them', async () => {
		const {env, file} = configDir();
		writeFileSync(file, JSON.stringify(old), {mode: 0o600});
		expect((await runCliInProcess(['config', 'set', 'baseUrl', 'http://127.0.0.1:4010', '--profile', 'local'], {env})).code).toBe(0);
		const written = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
		const {profiles, ...topLevel} = written;
		expect(topLevel).toEqual(old);
		expect(profiles).toEqual({local: {baseUrl: 'http://127.0.0.1:4010'}});
		// And back: the default profile of the new file is what the old file held.
		expect(new ConfigStore(env).all()).toEqual(old);
	});
});

describe('profiles keep settings and keys apart', () => {
	it('config get and keys show answer for the profile asked for, the flag before or after the command', async () => {
		const {env} = await twoProfiles();
		expect((await runCliInProcess(['config', 'get', 'baseUrl'], {env})).stdout).toBe('https://prod.example.com\n');
		expect((await runCliInProcess(['config', 'set', 'model', 'm2', '--profile', 'staging'], {env})).stdout).toMatch(/^Stored model = m2 in .*config\.json \(profile staging\)\n$/);
		expect((await runCliInProcess(['keys', 'set'], {env, stdin: keyA})).stdout).toMatch(/^Unchanged: API key …AAAA in .*config\.json \(mode 0600\)\n$/);
		expect((await runCliInProcess(['--profile', 'staging', 'config', 'get', 'baseUrl'], {env})).stdout).toBe('https://staging.example.com\n');
		expect((await runCliInProcess(['config', 'get', 'baseUrl', '--profile=staging'], {env})).stdout).toBe('https://staging.example.com\n');
		const shown = async (argv: string[]) => lines((await runCliInProcess([...argv, '--json'], {env})).stdout);
		expect((await shown(['keys', 'show']))[0]).toMatchObject({type: 'key', key: '…AAAA', source: 'stored'});
		const staging = await shown(['keys', '--profile', 'staging', 'show']);
		expect(staging[0]).toMatchObject({type: 'key', key: '…BBBB', source: 'stored'});
		expect(staging.at(-1)).toMatchObject({type: 'result', command: 'keys show', profile: 'staging'});
		expect((await shown(['keys', 'show'])).at(-1)).not.toHaveProperty('profile');
	});

	it('PLATFORM_PROFILE selects a profile; --profile beats it, and it beats the file\'s choice', async () => {
		const {env} = await twoProfiles();
		expect((await runCliInProcess(['config', 'get', 'baseUrl'], {env: {...env, PLATFORM_PROFILE: 'staging'}})).stdout).toBe('https://staging.example.com\n');
		expect((await runCliInProcess(['config', 'get', 'baseUrl', '--profile', 'default'], {env: {...env, PLATFORM_PROFILE: 'staging'}})).stdout).toBe('https://prod.example.com\n');
		expect((await runCliInProcess(['config', 'use', 'staging'], {env})).code).toBe(0);
		expect((await runCliInProcess(['config', 'get', 'baseUrl'], {env: {...env, PLATFORM_PROFILE: 'default'}})).stdout).toBe('https://prod.example.com\n');
		expect(new ConfigStore(env).profileName()).toBe('staging');
		expect(new ConfigStore({...env, PLATFORM_PROFILE: 'x'}, {profile: 'default'}).profileName()).toBe('default');
	});

	it('the environment still beats the profile for a setting (flag > env > profile)', async () => {
		const {env} = await twoProfiles();
		const listed = lines((await runCliInProcess(['config', 'list', '--json', '--profile', 'staging', '--app-id', 'app_flag'], {env: {...env, PLATFORM_BASE_URL: 'https://env.example.com'}})).stdout);
		expect(listed.find(line => line.name === 'baseUrl')).toMatchObject({value: 'https://env.example.com', source: 'env'});
		expect(listed.find(line => line.name === 'appId')).toMatchObject({value: 'app_flag', source: 'flag'});
		expect(listed.find(line => line.name === 'apiKey')).toMatchObject({value: '…BBBB', source: 'stored'});
	});
});

describe('one read of the config file per run', () => {
	it('the --json end line names the profile the run\'s own read of the config file chose, reading it once', async () => {
		const {env, file} = await twoProfiles();
		expect((await runCliInProcess(['config', 'use', 'staging'], {env})).code).toBe(0);
		const ids = {chatIds: [], contentIds: [], eventIds: []};
		const reads = await readsOf(file, async () => {
			const run = await runCliInProcess(['config', 'get', 'baseUrl', '--json'], {env});
			expect(lines(run.stdout)).toEqual([
				{type: 'setting', name: 'baseUrl', value: 'https://staging.example.com', source: 'stored'},
				{type: 'result', command: 'config get', exitCode: 0, profile: 'staging', ...ids},
			]);
		});
		expect(reads).toBe(1);
	});

	it('a --json run that fails words its error and names its profile from that one read', async () => {
		const {env, file} = await twoProfiles();
		expect((await runCliInProcess(['config', 'use', 'staging'], {env})).code).toBe(0);
		const reads = await readsOf(file, async () => {
			const run = await runCliInProcess(['check', 'folder', '--chat', 'chat_1', '--json'], {env});
			expect(run.code).toBe(1);
			expect(lines(run.stdout)).toEqual([expect.objectContaining({type: 'error', code: 'settings-missing', profile: 'staging'})]);
		});
		expect(reads).toBe(1);
	});

	it('keys show reads it once for the key, its age and the policy', async () => {
		const {env, file} = await twoProfiles();
		expect((await runCliInProcess(['config', 'set', 'keyMaxAge', '90d', '--profile', 'staging'], {env})).code).toBe(0);
		const reads = await readsOf(file, async () => {
			const shown = lines((await runCliInProcess(['keys', 'show', '--json', '--profile', 'staging'], {env})).stdout);
			expect(shown[0]).toMatchObject({type: 'key', key: '…BBBB', source: 'stored', storedKey: '…BBBB', maxAge: '90d', nextRotationDueAt: expect.any(String) as string});
			expect(shown.at(-1)).toMatchObject({type: 'result', command: 'keys show', exitCode: 0, profile: 'staging'});
		});
		expect(reads).toBe(1);
	});
});

describe('config use and config profiles', () => {
	it('config use switches the default profile; config use default leaves the old shape', async () => {
		const {env, file} = await twoProfiles();
		const used = await runCliInProcess(['config', 'use', 'staging', '--json'], {env});
		expect(lines(used.stdout)[0]).toMatchObject({type: 'stored', name: 'activeProfile', value: 'staging'});
		expect((await runCliInProcess(['config', 'get', 'baseUrl'], {env})).stdout).toBe('https://staging.example.com\n');
		const listed = lines((await runCliInProcess(['config', 'profiles', '--json'], {env})).stdout);
		expect(listed.slice(0, 2).map(line => [line.name, line.active, line.key])).toEqual([['default', false, '…AAAA'], ['staging', true, '…BBBB']]);
		const text = await runCliInProcess(['config', 'profiles'], {env});
		expect(text.stdout).toContain('staging\thttps://staging.example.com\t…BBBB');
		expect(text.stderr).toContain('Using profile staging (`config use`)');
		expect((await runCliInProcess(['config', 'use', 'default'], {env})).code).toBe(0);
		expect(JSON.parse(readFileSync(file, 'utf8'))).not.toHaveProperty('activeProfile');
	});

	it('an unknown profile names the known ones (did you mean) and config use of one changes nothing', async () => {
		const {env, file} = await twoProfiles();
		const before = readFileSync(file, 'utf8');
		const use = await runCliInProcess(['config', 'use', 'stagin', '--json'], {env});
		expect(use.code).toBe(1);
		expect(use.stderr).toContain('No profile "stagin" (from config use) in the config file');
		expect(use.stderr).toContain('its profiles are default, staging. Did you mean "staging"?');
		expect(lines(use.stdout).at(-1)).toMatchObject({type: 'error', code: 'profile-unknown'});
		expect(readFileSync(file, 'utf8')).toBe(before);
		const get = await runCliInProcess(['config', 'get', 'baseUrl'], {env: {...env, PLATFORM_PROFILE: 'stagng'}});
		expect(get.code).toBe(1);
		expect(get.stderr).toContain('No profile "stagng" (from PLATFORM_PROFILE)');
		expect(get.stderr).toContain('Did you mean "staging"?');
		const flagged = await runCliInProcess(['--profile', 'prod', 'keys', 'show', '--json'], {env});
		expect(lines(flagged.stdout).at(-1)).toMatchObject({type: 'error', code: 'profile-unknown', profile: 'prod'});
		expect(flagged.stderr).toContain('No profile "prod" (from --profile)');
		expect(readFileSync(file, 'utf8')).toBe(before);
	});

	it('a blank --profile is refused, not passed over to PLATFORM_PROFILE or the file', async () => {
		const {env} = await twoProfiles();
		const run = await runCliInProcess(['config', 'get', 'baseUrl', '--profile', ' '], {env: {...env, PLATFORM_PROFILE: 'staging'}});
		expect(run.code).toBe(1);
		expect(run.stderr).toContain('--profile must be a non-empty value');
		const badName = await runCliInProcess(['config', 'set', 'model', 'm'], {env: {...env, PLATFORM_PROFILE: 'my profile'}});
		expect(badName.code).toBe(1);
		expect(badName.stderr).toContain('"my profile" (from PLATFORM_PROFILE) cannot name a profile');
	});
});

describe('a PLATFORM_PROFILE that cannot name a profile', () => {
	it('is refused as an invalid name (as --profile is), naming PLATFORM_PROFILE, never advised to be created', async () => {
		const {env} = await twoProfiles();
		const badEnv = {...env, PLATFORM_PROFILE: 'bad name'};
		const plain = await runCliInProcess(['keys', 'show'], {env: badEnv});
		expect(plain.code).toBe(1);
		expect(plain.stderr).toBe('Error: "bad name" (from PLATFORM_PROFILE) cannot name a profile: it must be a profile name: a letter or digit, then letters, digits, ".", "_" or "-" (64 at most). Set PLATFORM_PROFILE to a profile\'s name, e.g. PLATFORM_PROFILE=staging, or unset it.\n');
		const json = await runCliInProcess(['keys', 'show', '--json'], {env: badEnv});
		expect(json.code).toBe(1);
		const last = lines(json.stdout).at(-1);
		expect(last).toMatchObject({type: 'error', code: 'profile-invalid'});
		// The error line names no profile: there is none by that name.
		expect(last).not.toHaveProperty('profile');
		expect(json.stderr).not.toContain('config set --profile');
		// Refused before it is looked up, by every command that reads the file, listing the profiles included.
		const listed = await runCliInProcess(['config', 'profiles'], {env: badEnv});
		expect(listed.code).toBe(1);
		expect(listed.stderr).toContain('(from PLATFORM_PROFILE) cannot name a profile');
	});

	it('a chosen profile the file lacks is offered to be created only when its name can be one', async () => {
		const {env, file} = await twoProfiles();
		const written = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
		writeFileSync(file, JSON.stringify({...written, activeProfile: 'bad name'}), {mode: 0o600});
		const run = await runCliInProcess(['keys', 'show'], {env});
		expect(run.code).toBe(1);
		expect(run.stderr).toContain('No profile "bad name" (from the config file\'s activeProfile)');
		expect(run.stderr).not.toContain('config set --profile');
		const good = await runCliInProcess(['keys', 'show'], {env: {...env, PLATFORM_PROFILE: 'prod'}});
		expect(good.stderr).toContain('`platform-tui config set --profile prod baseUrl <url>`');
	});
});

describe('a damaged config file', () => {
	it('is refused as before, naming the profile being read', async () => {
		const {env, file} = configDir();
		writeFileSync(file, '{"baseUrl": ', {mode: 0o600});
		const plain = await runCliInProcess(['config', 'list'], {env});
		expect(plain.stderr).toContain(`The config file ${file} is not valid JSON`);
		const staging = await runCliInProcess(['config', 'list', '--profile', 'staging'], {env});
		expect(staging.code).toBe(1);
		expect(staging.stderr).toContain(`The config file ${file} (reading profile "staging") is not valid JSON`);
		writeFileSync(file, JSON.stringify({profiles: {staging: {baseUrl: 42}}}), {mode: 0o600});
		const field = await runCliInProcess(['config', 'list'], {env});
		expect(field.stderr).toContain(`The config file ${file} holds a number for "profiles.staging.baseUrl"`);
	});
});
