/**
 * The key lifecycle for unattended use: the key's age (also for a key stored by `keys set`),
 * `keys rotate --if-older-than` both ways with the clock moved forward (the injectable clock, no
 * sleeps), the keyMaxAge warning (stderr only, once per run), `--dotenv`, and a new key the
 * platform refuses on the check call.
 */
import {mkdtempSync, readFileSync, statSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {createDeps, type Clock} from '../../source/cli/deps.js';
import {describeError, joinText} from '../../source/cli/error-message.js';
import keysRotate from '../../source/commands/keys/rotate.js';
import keysSet from '../../source/commands/keys/set.js';
import keysShow from '../../source/commands/keys/show.js';
import configSet from '../../source/commands/config/set.js';
import uploadCommand from '../../source/commands/upload/upload.js';
import type {CommandContext} from '../../source/cli/types.js';
import {ConfigStore} from '../../source/config/store.js';
import {apiKeyOf, withApiKey} from '../../source/keys/env-file.js';
import {KeyRotationError} from '../../source/keys/errors.js';
import {ManualClock, type LocalPlatform} from '../../source/local-platform/index.js';
import {makeFolder} from '../workflow/helpers.js';
import {startRecordingServer, type RecordingServer} from '../support/recording-server.js';
import {platformEnv, startPlatform} from '../support/platform.js';
import {memoryStream, runCommand, testEnv} from '../support/run-command.js';

const dayMs = 86_400_000;
const start = Date.parse('2031-03-01T09:00:00.000Z');

function freshDir(): string {
	return mkdtempSync(join(tmpdir(), 'platform-tui-lifecycle-'));
}

/** A clock the test moves by hand. */
function manualClock(at: number): Clock & {set(ms: number): void} {
	let now = at;
	return {
		now: () => now,
		set(ms) {
			now = ms;
		},
	};
}

describe('key lifecycle against the local platform', () => {
	let platform: LocalPlatform;

	beforeAll(async () => {
		platform = (await startPlatform({keyOverlapMs: 60 * 60 * 1000})).platform;
	});

	afterAll(async () => {
		await platform.close();
	});

	/** Settings for the platform without PLATFORM_API_KEY: the key is the stored one. */
	function envFor(dir: string, extra: Record<string, string> = {}): Record<string, string | undefined> {
		return platformEnv(platform, {PLATFORM_TUI_CONFIG_DIR: dir, PLATFORM_API_KEY: undefined, ...extra});
	}

	it('--if-older-than: a key stored by keys set is not rotated while young, and is once the clock passes the age', async () => {
		const dir = freshDir();
		const env = envFor(dir);
		const clock = manualClock(start);
		const firstKey = platform.apiKey;
		expect((await runCommand(keysSet, {env, stdin: firstKey, clock})).code).toBe(0);
		expect(new ConfigStore(env).rotation().keySetAt).toBe(new Date(start).toISOString());

		clock.set(start + (29 * dayMs));
		const seen = platform.requests.length;
		const young = await runCommand(keysRotate, {flags: {ifOlderThan: '30d'}, env, clock});
		expect(young.code).toBe(0);
		expect(young.stdout).toBe(`Not rotated: the key …${firstKey.slice(-4)} was set 2031-03-01 09:00:00 UTC, 29 d 0 h ago, not older than 30d.\n`);
		expect(young.stderr).toBe('');
		expect(platform.requests.slice(seen)).toEqual([]);
		expect(new ConfigStore(env).get('apiKey')).toBe(firstKey);

		const youngJson = await runCommand(keysRotate, {flags: {ifOlderThan: '30d'}, env, clock, json: true});
		expect(JSON.parse(youngJson.stdout)).toEqual({type: 'rotation', rotated: false, key: `…${firstKey.slice(-4)}`, source: 'stored', keySetAt: '2031-03-01T09:00:00.000Z', ageSeconds: 29 * 86_400, olderThan: '30d'});

		clock.set(start + (30 * dayMs) + 1000);
		const old = await runCommand(keysRotate, {flags: {ifOlderThan: '30d'}, env, clock, json: true});
		expect(old.code).toBe(0);
		const rotated = JSON.parse(old.stdout) as Record<string, unknown>;
		expect(rotated).toMatchObject({type: 'rotation', rotated: true, stored: true, verified: true, previousKey: `…${firstKey.slice(-4)}`});
		const secondKey = platform.apiKey;
		expect(secondKey).not.toBe(firstKey);
		const store = new ConfigStore(env);
		expect(store.get('apiKey')).toBe(secondKey);
		expect(store.rotation().keySetAt).toBe(new Date(start + (30 * dayMs) + 1000).toISOString());
		// The check call: Get space with the new key, after the rotate call.
		const calls = platform.requests.slice(seen);
		expect(calls.map(call => `${call.method} ${call.path}`).slice(-2)).toEqual(['POST /v2/keys/rotate', `GET /space/${platform.assistantId}`]);
		expect(calls.at(-1)?.headers.authorization).toBe(`Bearer ${secondKey}`);

		// The age restarts at the rotation: an hour later the same timer changes nothing.
		clock.set(start + (30 * dayMs) + 1000 + 3_600_000);
		const again = await runCommand(keysRotate, {flags: {ifOlderThan: '30d'}, env, clock});
		expect(again.stdout).toMatch(/^Not rotated: the key …\S{4} was set .* 1 h 00 min ago, not older than 30d\.\n$/);
		expect(platform.apiKey).toBe(secondKey);
	});

	it('keyMaxAge: one warning on stderr for a command that uses an old key, never on stdout or in --json', async () => {
		const dir = freshDir();
		const env = envFor(dir, {PLATFORM_KEY_MAX_AGE: '30d'});
		expect((await runCommand(keysSet, {env, stdin: platform.apiKey, clock: manualClock(start)})).code).toBe(0);
		const folder = makeFolder({'warranty.txt': 'Every Aurora Mini comes with a two-year limited warranty.\n'});
		try {
			// The key is 40 days old by the clock the command is given (a fixed one: reading Date.now()
			// twice here made it 1 ms younger now and then, and the warning said 9d23h59m59s999ms).
			const clock = manualClock(start + (40 * dayMs));
			const run = await runCommand(uploadCommand, {argv: [folder.dir, 'How long is the warranty?'], flags: {pollInterval: '0.05'}, env, clock, json: true});
			expect(run.code).toBe(0);
			const warnings = run.stderr.split('\n').filter(line => line.startsWith('Warning: the API key'));
			expect(warnings).toEqual([`Warning: the API key …${platform.apiKey.slice(-4)} is 40 d 0 h old, older than PLATFORM_KEY_MAX_AGE (30d), 10 d 0 h past due; rotate it with \`platform-tui keys rotate\`.`]);
			expect(run.stdout).not.toContain('Warning');
			for (const line of run.stdout.trim().split('\n')) {
				expect(() => JSON.parse(line) as unknown).not.toThrow();
			}

			// A young key: no warning.
			const young = await runCommand(uploadCommand, {argv: [folder.dir, 'How long is the warranty?'], flags: {pollInterval: '0.05'}, env, clock: manualClock(start + dayMs), json: true});
			expect(young.code).toBe(0);
			expect(young.stderr).not.toContain('Warning');
		} finally {
			folder.cleanup();
		}
	});

	it('keyMaxAge: the warning is printed at most once however many clients a run makes', async () => {
		const dir = freshDir();
		const env = testEnv(envFor(dir, {PLATFORM_KEY_MAX_AGE: '1d'}));
		await new ConfigStore(env).setMany({apiKey: 'sk_old_key_9999', rotation: {keySetAt: new Date(start).toISOString()}});
		const stderr = memoryStream();
		const stdout = memoryStream();
		const context = {argv: [], flags: {}, env, json: true, debug: false, interactive: false, stdin: process.stdin, stdout, stderr, signal: new AbortController().signal} satisfies CommandContext;
		const deps = createDeps(context, {clock: manualClock(start + (2 * dayMs))});
		const settings = deps.settings(['baseUrl', 'apiKey', 'appId'], 'test');
		const clients = [deps.client(settings), deps.client(settings), deps.client(settings)];
		deps.warnKeyAge();
		await Promise.all(clients.map(async client => client.close()));
		expect(stderr.text().split('\n').filter(Boolean)).toEqual(['Warning: the API key …9999 is 2 d 0 h old, older than PLATFORM_KEY_MAX_AGE (1d), 1 d 0 h past due; rotate it with `platform-tui keys rotate`.']);
		expect(stdout.text()).toBe('');
	});

	it('a skipped rotation still warns when the key is older than keyMaxAge; a rotation does not', async () => {
		const dir = freshDir();
		const env = envFor(dir, {PLATFORM_KEY_MAX_AGE: '7d'});
		expect((await runCommand(keysSet, {env, stdin: platform.apiKey, clock: manualClock(start)})).code).toBe(0);
		const clock = manualClock(start + (8 * dayMs));
		const skipped = await runCommand(keysRotate, {flags: {ifOlderThan: '30d'}, env, clock, json: true});
		expect(skipped.code).toBe(0);
		expect(JSON.parse(skipped.stdout)).toMatchObject({rotated: false});
		expect(skipped.stderr).toContain('older than PLATFORM_KEY_MAX_AGE (7d)');
		const rotated = await runCommand(keysRotate, {flags: {ifOlderThan: '7d'}, env, clock, json: true});
		expect(JSON.parse(rotated.stdout)).toMatchObject({rotated: true});
		expect(rotated.stderr).toBe('');
	});

	it('--dotenv: writes the new key, keeps every other line, mode 0600', async () => {
		const dir = freshDir();
		const env = envFor(dir);
		expect((await runCommand(keysSet, {env, stdin: platform.apiKey})).code).toBe(0);
		const envFile = join(dir, 'receiver.env');
		const before = '# receiver settings\nPLATFORM_BASE_URL=http://127.0.0.1:4010\nexport PLATFORM_API_KEY=sk_stale_key_0000\n\nPLATFORM_ENDPOINT_SECRET="whsec_x y"\n';
		writeFileSync(envFile, before, {mode: 0o644});
		const result = await runCommand(keysRotate, {flags: {yes: true, dotenv: envFile}, env});
		expect(result.code).toBe(0);
		expect(result.stderr).toContain(`Wrote PLATFORM_API_KEY=…${platform.apiKey.slice(-4)} into ${envFile} (mode 0600)`);
		expect(result.stdout).not.toContain(platform.apiKey);
		expect(readFileSync(envFile, 'utf8')).toBe(before.replace('sk_stale_key_0000', platform.apiKey));
		expect(statSync(envFile).mode & 0o777).toBe(0o600);

		// A missing file is made with the one line.
		const fresh = join(dir, 'new.env');
		expect((await runCommand(keysRotate, {flags: {yes: true, dotenv: fresh}, env})).code).toBe(0);
		expect(readFileSync(fresh, 'utf8')).toBe(`PLATFORM_API_KEY=${platform.apiKey}\n`);
		expect(statSync(fresh).mode & 0o777).toBe(0o600);
	});

	it('--dotenv: two rotations at once leave the file holding the one key in use', async () => {
		const dir = freshDir();
		const env = envFor(dir);
		expect((await runCommand(keysSet, {env, stdin: platform.apiKey})).code).toBe(0);
		const envFile = join(dir, 'receiver.env');
		writeFileSync(envFile, 'OTHER=1\nPLATFORM_API_KEY=sk_stale_key_0000\n');
		const results = await Promise.all([1, 2].map(async () => runCommand(keysRotate, {flags: {yes: true, dotenv: envFile}, env, json: true})));
		expect(results.map(result => result.code)).toEqual([0, 0]);
		const answers = results.map(result => JSON.parse(result.stdout) as {key: string; previousKey: string});
		// One chain: the second rotated the key the first stored.
		expect(new Set(answers.map(answer => answer.key)).size).toBe(2);
		const stored = new ConfigStore(env).get('apiKey');
		expect(stored).toBe(platform.apiKey);
		const text = readFileSync(envFile, 'utf8');
		expect(text).toBe(`OTHER=1\nPLATFORM_API_KEY=${stored}\n`);
		expect(apiKeyOf(text)).toBe(stored);
		expect(statSync(envFile).mode & 0o777).toBe(0o600);
	});
});

describe('keys show against a platform on the same clock', () => {
	const platformClock = new ManualClock(start);
	const clock: Clock = {now: () => platformClock.now()};
	let platform: LocalPlatform;

	beforeAll(async () => {
		platform = (await startPlatform({keyOverlapMs: 60 * 60 * 1000, clock: platformClock})).platform;
	});

	afterAll(async () => {
		await platform.close();
	});

	it('the age, the overlap left and the next rotation due, in text and --json', async () => {
		const env = platformEnv(platform, {PLATFORM_TUI_CONFIG_DIR: freshDir(), PLATFORM_API_KEY: undefined});
		expect((await runCommand(keysSet, {env, stdin: platform.apiKey, clock})).code).toBe(0);
		expect((await runCommand(configSet, {argv: ['keyMaxAge', '90d'], env})).code).toBe(0);
		platformClock.advance(10 * dayMs);
		const rotated = await runCommand(keysRotate, {flags: {yes: true}, env, clock});
		expect(rotated.code).toBe(0);

		platformClock.advance(20 * 60 * 1000);
		const text = await runCommand(keysShow, {env, clock});
		expect(text.stdout).toContain('Key age        20 min 00 s (set 2031-03-11 09:00:00 UTC)');
		expect(text.stdout).toContain('Next rotation  due 2031-06-09 09:00:00 UTC, in 89 d 23 h (keyMaxAge 90d)');
		expect(text.stdout).toMatch(/Previous key {3}…\S{4} still works until 2031-03-11 10:00:00 UTC/);
		expect(text.stdout).toContain('40 min 00 s left');

		const json = JSON.parse((await runCommand(keysShow, {env, clock, json: true})).stdout) as Record<string, unknown>;
		expect(json).toMatchObject({
			keySetAt: '2031-03-11T09:00:00.000Z',
			ageSeconds: 20 * 60,
			maxAge: '90d',
			nextRotationDueAt: '2031-06-09T09:00:00.000Z',
			rotationOverdue: false,
			previousKey: {valid: true, remainingSeconds: 40 * 60, expiresAt: '2031-03-11T10:00:00.000Z'},
		});

		platformClock.advance(91 * dayMs);
		const overdue = await runCommand(keysShow, {env: {...env, PLATFORM_KEY_MAX_AGE: '30d'}, clock});
		expect(overdue.stdout).toContain('Next rotation  overdue since 2031-04-10 09:00:00 UTC');
		expect(overdue.stdout).toContain('keyMaxAge 30d');
		expect(overdue.stdout).toMatch(/Previous key {3}…\S{4} expired at 2031-03-11 10:00:00 UTC/);
	});
});

describe('a new key the platform refuses', () => {
	let server: RecordingServer;

	beforeAll(async () => {
		server = await startRecordingServer();
		server.setFallback(request => (request.path === '/v2/keys/rotate'
			? {status: 200, body: {new_key: 'sk_issued_but_refused_NEW9', old_key_expires_at: '2031-03-02T09:00:00Z'}}
			: {status: 401, body: {error: 'Invalid API key'}, headers: {'request-id': 'req_refused_new_key'}}));
	});

	afterAll(async () => {
		await server.close();
	});

	it('keeps the old key stored, names the request id, and writes no env file', async () => {
		const dir = freshDir();
		const env = {PLATFORM_TUI_CONFIG_DIR: dir, PLATFORM_BASE_URL: server.url, PLATFORM_APP_ID: 'app', PLATFORM_USER_ID: 'user', PLATFORM_COMPANY_ID: 'company', PLATFORM_ASSISTANT_ID: 'assistant_1'};
		await new ConfigStore(env).setMany({apiKey: 'sk_current_key_OLD7', rotation: {keySetAt: '2031-01-01T00:00:00.000Z'}});
		const envFile = join(dir, 'receiver.env');
		writeFileSync(envFile, 'PLATFORM_API_KEY=sk_current_key_OLD7\n', {mode: 0o600});
		const result = await runCommand(keysRotate, {flags: {yes: true, dotenv: envFile}, env, clock: manualClock(start)});
		expect(result.code).toBe(1);
		expect(result.error).toBeInstanceOf(KeyRotationError);
		expect((result.error as KeyRotationError).data).toMatchObject({kind: 'new-key-refused', status: 401, requestId: 'req_refused_new_key', newKeyMasked: '…NEW9'});
		const text = joinText(describeError(result.error));
		expect(text).toContain('req_refused_new_key');
		expect(text).toContain('…NEW9');
		expect(text).toContain('…OLD7 stays stored, where it works until 2031-03-02 09:00:00 UTC');
		expect(result.stderr).not.toContain('sk_issued_but_refused_NEW9');
		const store = new ConfigStore(env);
		expect(store.get('apiKey')).toBe('sk_current_key_OLD7');
		expect(store.rotation()).toEqual({keySetAt: '2031-01-01T00:00:00.000Z'});
		expect(readFileSync(envFile, 'utf8')).toBe('PLATFORM_API_KEY=sk_current_key_OLD7\n');
		const check = server.requests.find(request => request.method === 'GET');
		expect(check?.path).toBe('/space/assistant_1');
		expect(check?.headers.authorization).toBe('Bearer sk_issued_but_refused_NEW9');
	});
});

describe('withApiKey', () => {
	it('replaces every PLATFORM_API_KEY line, keeps export and CRLF, and appends when there is none', () => {
		expect(withApiKey('A=1\nPLATFORM_API_KEY=x\nB=2\nPLATFORM_API_KEY=y\n', 'k')).toBe('A=1\nPLATFORM_API_KEY=k\nB=2\nPLATFORM_API_KEY=k\n');
		expect(withApiKey('A=1\r\nexport PLATFORM_API_KEY = "x"\r\n', 'k')).toBe('A=1\r\nexport PLATFORM_API_KEY=k\r\n');
		expect(withApiKey('A=1', 'k')).toBe('A=1\nPLATFORM_API_KEY=k\n');
		expect(withApiKey('A=1\r\n', 'k')).toBe('A=1\r\nPLATFORM_API_KEY=k\r\n');
		expect(withApiKey('', 'k')).toBe('PLATFORM_API_KEY=k\n');
		expect(withApiKey('PLATFORM_API_KEY_OLD=1\n', 'k')).toBe('PLATFORM_API_KEY_OLD=1\nPLATFORM_API_KEY=k\n');
		expect(apiKeyOf('PLATFORM_API_KEY="a"\nPLATFORM_API_KEY=b\n')).toBe('b');
	});
});
