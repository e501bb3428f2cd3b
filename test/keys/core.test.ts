import {mkdtempSync, statSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import {apiKeySupplier} from '../../source/config/resolve.js';
import {ConfigStore, type ConfigTransaction} from '../../source/config/store.js';
import {formatCountdown as formatDuration} from '../../source/format/duration.js';
import {describeError, joinText} from '../../source/cli/error-message.js';
import {CoreError} from '../../source/core-error.js';
import {currentApiKey} from '../../source/keys/current.js';
import {KeyInvalidError, KeyRotationError} from '../../source/keys/errors.js';
import {keyStatus} from '../../source/keys/status.js';
import {parseIsoTimestamp} from '../../source/keys/time.js';
import {rotateApiKey, type RotationEvent, type RotationOutcome} from '../../source/keys/rotate.js';
import {storeApiKey} from '../../source/keys/set.js';
import {ManualClock, type LocalPlatform} from '../../source/local-platform/index.js';
import {startRecordingServer, type RecordingServer} from '../support/recording-server.js';
import {clientFor, startPlatform} from '../support/platform.js';
import {PlatformApiError} from '../../source/platform/errors.js';
import {PlatformClient} from '../../source/platform/client.js';

/** The sentence and next step the CLI prints for an error (the wording lives in the messages tables). */
const worded = (error: unknown) => joinText(describeError(error));

function freshStore(): {store: ConfigStore; env: NodeJS.ProcessEnv} {
	const env: NodeJS.ProcessEnv = {PLATFORM_TUI_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'platform-tui-keys-'))};
	return {store: new ConfigStore(env), env};
}

const bearerOf = (headers: Record<string, string>) => headers.authorization?.replace(/^Bearer\s+/i, '');

describe('rotateApiKey against the local platform', () => {
	let platform: LocalPlatform;
	const clients: PlatformClient[] = [];
	const track = (client: PlatformClient) => {
		clients.push(client);
		return client;
	};

	beforeAll(async () => {
		platform = (await startPlatform({keyOverlapMs: 60 * 60 * 1000})).platform;
	});

	afterEach(async () => {
		await Promise.all(clients.splice(0).map(async client => client.close()));
	});

	afterAll(async () => {
		await platform.close();
	});

	it('stores the new key and the rotation state in the 0600 file before returning, and the next call uses the new key', async () => {
		const {store, env} = freshStore();
		const oldKey = platform.apiKey;
		await store.set('apiKey', oldKey);
		const client = track(clientFor(platform, {apiKey: apiKeySupplier({env, store, fallback: oldKey}), retries: 0}));
		const events: RotationEvent[] = [];
		const rotatedAt = new Date('2030-01-01T00:00:00.000Z');
		const seen = platform.requests.length;
		const outcome = await rotateApiKey({client, store, env, now: () => rotatedAt, onEvent: event => events.push(event)});

		expect(outcome.stored).toBe(true);
		expect(outcome.newKey).toBe(platform.apiKey);
		expect(outcome.newKey).not.toBe(oldKey);
		expect(outcome.newKeyMasked).toBe(`…${outcome.newKey.slice(-4)}`);
		expect(outcome.previousKeyMasked).toBe(`…${oldKey.slice(-4)}`);
		expect(outcome.envOverride).toBe(false);
		const expiry = Date.parse(outcome.expiresAt ?? '');
		expect(expiry).toBeGreaterThan(Date.now() + (59 * 60 * 1000));

		// The call: POST /v2/keys/rotate, bearer = the old key, JSON content type.
		const rotateCall = platform.requests.slice(seen).find(request => request.path === '/v2/keys/rotate');
		expect(rotateCall?.method).toBe('POST');
		expect(rotateCall?.headers.authorization).toBe(`Bearer ${oldKey}`);
		// The contract gives the rotate call no body but lists Content-Type: application/json for it.
		expect(rotateCall?.headers['content-type']).toBe('application/json');
		expect(rotateCall?.status).toBe(200);

		// Stored on disk, with the rotation state, in a 0600 file; read by a fresh store.
		const onDisk = new ConfigStore(env);
		expect(onDisk.get('apiKey')).toBe(outcome.newKey);
		expect(onDisk.rotation()).toEqual({
			previousKeyExpiresAt: outcome.expiresAt,
			previousKeyMasked: `…${oldKey.slice(-4)}`,
			lastRotatedAt: rotatedAt.toISOString(),
			keySetAt: rotatedAt.toISOString(),
		});
		expect(JSON.stringify(onDisk.all())).not.toContain(oldKey);
		expect(statSync(store.path).mode & 0o777).toBe(0o600);

		expect(events.map(event => event.type)).toEqual(['rotating', 'rotated', 'stored']);
		expect(JSON.stringify(events)).not.toContain(outcome.newKey);
		expect(JSON.stringify(events)).not.toContain(oldKey);

		// The same client's next request carries the new key.
		const before = platform.requests.length;
		await client.getSpace(platform.assistantId);
		const next = platform.requests.slice(before);
		expect(next.map(request => bearerOf(request.headers))).toEqual([outcome.newKey]);
	});

	it('keeps the old key working inside the overlap and refuses it after', async () => {
		// The overlap passes when the test moves the platform's clock, not while the calls inside it run.
		const clock = new ManualClock();
		const short = (await startPlatform({keyOverlapMs: 300, clock})).platform;
		try {
			const {store, env} = freshStore();
			const oldKey = short.apiKey;
			await store.set('apiKey', oldKey);
			const outcome = await rotateApiKey({client: track(clientFor(short, {apiKey: apiKeySupplier({env, store, fallback: oldKey}), retries: 0})), store, env});
			const withOldKey = track(clientFor(short, {apiKey: oldKey, retries: 0}));
			const withNewKey = track(clientFor(short, {apiKey: outcome.newKey, retries: 0}));
			// Inside the overlap: both keys work.
			await expect(withOldKey.getSpace(short.assistantId)).resolves.toMatchObject({name: expect.any(String) as unknown});
			await expect(withNewKey.getSpace(short.assistantId)).resolves.toMatchObject({name: expect.any(String) as unknown});
			// After the announced expiry: the old key is refused, the new one still works.
			const expiresAt = Date.parse(outcome.expiresAt ?? '');
			expect(expiresAt).toBe(clock.now() + 300);
			clock.advance(expiresAt + 1 - clock.now());

			const refused = await withOldKey.getSpace(short.assistantId).then(() => undefined, (error: unknown) => error);
			expect(refused).toBeInstanceOf(PlatformApiError);
			expect((refused as PlatformApiError).status).toBe(401);
			await expect(withNewKey.getSpace(short.assistantId)).resolves.toMatchObject({name: expect.any(String) as unknown});
		} finally {
			await short.close();
		}
	});

	it('maps a 401 (an expired key) to a clear "refused" error and stores nothing', async () => {
		const clock = new ManualClock();
		const short = (await startPlatform({keyOverlapMs: 100, clock})).platform;
		try {
			const {store, env} = freshStore();
			const oldKey = short.apiKey;
			await store.set('apiKey', oldKey);
			const first = await rotateApiKey({client: track(clientFor(short, {apiKey: oldKey, retries: 0})), store, env});
			clock.advance(Date.parse(first.expiresAt ?? '') + 1 - clock.now());

			// Put the expired key back, as if the rotation had happened elsewhere.
			await store.setMany({apiKey: oldKey, rotation: {}});
			const error = await rotateApiKey({client: track(clientFor(short, {apiKey: oldKey, retries: 0})), store, env}).then(() => undefined, (caught: unknown) => caught);
			expect(error).toBeInstanceOf(KeyRotationError);
			expect(error).toBeInstanceOf(CoreError);
			const rotationError = error as KeyRotationError;
			expect(rotationError.kind).toBe('refused');
			expect(rotationError.code).toBe('rotation-refused');
			expect(rotationError.message).toContain('HTTP 401');
			expect(rotationError.message).toContain('expired or been revoked');
			expect(rotationError.message).not.toContain('platform-tui');
			expect(worded(error)).toContain('platform-tui keys set');
			expect(rotationError.message).toContain(`…${oldKey.slice(-4)}`);
			expect(rotationError.message).not.toContain(oldKey);
			expect(worded(error)).not.toContain(oldKey);
			expect(store.get('apiKey')).toBe(oldKey);
			expect(store.rotation()).toEqual({});
		} finally {
			await short.close();
		}
	});

	it('maps a network failure to a clear error and keeps the key', async () => {
		const closed = (await startPlatform()).platform;
		const settings = {baseUrl: closed.baseUrl, appId: closed.appId, userId: closed.userId, companyId: closed.companyId};
		await closed.close();
		const {store, env} = freshStore();
		await store.set('apiKey', 'sk_test_unchanged_key_1234');
		const error = await rotateApiKey({client: track(clientFor(closed, {apiKey: 'sk_test_unchanged_key_1234', retries: 0})), store, env}).then(() => undefined, (caught: unknown) => caught);
		expect(error).toBeInstanceOf(KeyRotationError);
		expect((error as KeyRotationError).kind).toBe('network');
		expect((error as Error).message).toContain(`could not reach ${settings.baseUrl}`);
		expect((error as Error).message).toContain('…1234 is unchanged');
		expect(worded(error)).toContain('…1234 is unchanged');
		expect(worded(error)).toContain('PLATFORM_BASE_URL');
		expect(store.get('apiKey')).toBe('sk_test_unchanged_key_1234');
	});

	it('fails with a clear message when no key is set', async () => {
		const {store, env} = freshStore();
		const error = await rotateApiKey({client: track(clientFor(platform, {apiKey: 'unused', retries: 0})), store, env}).then(() => undefined, (caught: unknown) => caught);
		expect((error as KeyRotationError).kind).toBe('no-key');
		expect(worded(error)).toContain('platform-tui keys set');
	});

	it('reports a store that cannot be written, and hands back the full new key', async () => {
		const {env} = freshStore();
		class BrokenStore extends ConfigStore {
			override async transaction<T>(action: (transaction: ConfigTransaction) => Promise<T>): Promise<T> {
				return super.transaction(async transaction => action({
					read: () => transaction.read(),
					write() {
						throw new Error('EACCES: permission denied, open \'config.json\'');
					},
				}));
			}
		}

		const store = new BrokenStore(env);
		const oldKey = platform.apiKey;
		const events: RotationEvent[] = [];
		const outcome = await rotateApiKey({client: track(clientFor(platform, {apiKey: oldKey, retries: 0})), store, env: {...env, PLATFORM_API_KEY: oldKey}, onEvent: event => events.push(event)});
		expect(outcome.stored).toBe(false);
		expect(outcome.storeError).toContain('EACCES');
		expect(outcome.newKey).toBe(platform.apiKey);
		expect(outcome.envOverride).toBe(true);
		expect(outcome.previousKeySource).toBe('env');
		expect(events.map(event => event.type)).toEqual(['rotating', 'rotated', 'store-failed']);
	});
});

describe('rotateApiKey with malformed answers', () => {
	let server: RecordingServer;
	let baseUrl: string;
	let answer: {status: number; body: string} = {status: 200, body: '{}'};

	beforeAll(async () => {
		// The answer's text as given (not JSON-encoded): some cases are not JSON at all.
		server = await startRecordingServer({handler: (_request, response) => {
			response.writeHead(answer.status, {'content-type': 'application/json'});
			response.end(answer.body);
		}});
		baseUrl = server.url;
	});

	afterAll(async () => {
		await server.close();
	});

	async function rotateWith(body: string, status = 200) {
		answer = {status, body};
		const {store, env} = freshStore();
		await store.set('apiKey', 'sk_current_key_0000');
		const client = new PlatformClient({baseUrl, apiKey: 'sk_current_key_0000', appId: 'app', retries: 0});
		try {
			const result: {outcome?: RotationOutcome; error?: unknown} = await rotateApiKey({client, store, env}).then(outcome => ({outcome}), (error: unknown) => ({error}));
			return {...result, store};
		} finally {
			await client.close();
		}
	}

	it.each([
		['{}', 'new_key is missing'],
		['{"new_key": "", "old_key_expires_at": "2030-01-01T00:00:00Z"}', 'new_key: the key is empty'],
		['{"new_key": 42, "old_key_expires_at": "2030-01-01T00:00:00Z"}', 'new_key is a number'],
		['{"new_key": ["sk_in_a_list"], "old_key_expires_at": "2030-01-01T00:00:00Z"}', 'new_key is a list'],
		['{"new_key": {"key": "sk_nested"}, "old_key_expires_at": "2030-01-01T00:00:00Z"}', 'new_key is an object'],
		['{"new_key": "two words", "old_key_expires_at": "2030-01-01T00:00:00Z"}', 'spaces'],
		['[1, 2]', 'the body is a list, not an object'],
		['null', 'the body is null, not an object'],
		['<html>oops</html>', 'not JSON'],
	])('refuses %s and keeps the key', async (body, detail) => {
		const {error, store} = await rotateWith(body);
		expect(error).toBeInstanceOf(KeyRotationError);
		expect((error as KeyRotationError).kind).toBe('malformed');
		expect((error as Error).message).toContain('malformed');
		expect((error as Error).message).toContain(detail);
		expect(store.get('apiKey')).toBe('sk_current_key_0000');
	});

	it('stores a usable new key even when old_key_expires_at is not a timestamp, and says the expiry is unknown', async () => {
		const {outcome, store} = await rotateWith('{"new_key": "sk_issued_anyway_9999", "old_key_expires_at": "tomorrow"}');
		expect(outcome?.stored).toBe(true);
		expect(outcome?.expiresAt).toBeUndefined();
		expect(outcome?.malformedExpiry).toBe('tomorrow');
		expect(store.get('apiKey')).toBe('sk_issued_anyway_9999');
		expect(store.rotation().previousKeyExpiresAt).toBeUndefined();
	});

	it('maps other platform errors to a clear message', async () => {
		const {error} = await rotateWith('{"error": "maintenance"}', 400);
		expect((error as KeyRotationError).kind).toBe('platform');
		expect((error as Error).message).toContain('HTTP 400: maintenance');
		expect((error as Error).message).toContain('…0000 is unchanged');
	});
});

describe('currentApiKey', () => {
	it('gives PLATFORM_API_KEY first, else the stored key, from a store or from a file already read', async () => {
		const {store, env} = freshStore();
		await store.set('apiKey', 'sk_stored_6666');
		const file = store.all();
		for (const from of [{store}, {file}]) {
			expect(currentApiKey({env, ...from})).toEqual({key: 'sk_stored_6666', source: 'stored'});
			expect(currentApiKey({env: {...env, PLATFORM_API_KEY: ' sk_env_7777 '}, ...from})).toEqual({key: 'sk_env_7777', source: 'env'});
		}

		expect(currentApiKey({env, file: {apiKey: ''}})).toBeUndefined();
	});
});

describe('keyStatus', () => {
	it('reports the stored key masked, the last rotation and the previous key with its time left', async () => {
		const {store, env} = freshStore();
		await store.setMany({apiKey: 'sk_stored_key_ABCD', rotation: {previousKeyMasked: '…OLD1', previousKeyExpiresAt: '2030-01-01T12:00:00.000Z', lastRotatedAt: '2030-01-01T11:00:00.000Z'}});
		const status = keyStatus({env, store, now: () => new Date('2030-01-01T11:30:00.000Z')});
		expect(status).toEqual({
			key: {masked: '…ABCD', source: 'stored'},
			storedKeyMasked: '…ABCD',
			configPath: store.path,
			lastRotatedAt: '2030-01-01T11:00:00.000Z',
			previousKey: {masked: '…OLD1', expiresAt: '2030-01-01T12:00:00.000Z', valid: true, remainingMs: 30 * 60 * 1000},
			envHoldsPreviousKey: false,
			// A file from before key ages were kept: the last rotation put this key there.
			keySetAt: '2030-01-01T11:00:00.000Z',
			ageMs: 30 * 60 * 1000,
		});
		const later = keyStatus({env, store, now: () => new Date('2030-01-01T12:00:01.000Z')});
		expect(later.previousKey).toMatchObject({valid: false, remainingMs: 0});
	});

	it('says when PLATFORM_API_KEY overrides the store, and when it still holds the rotated-out key', async () => {
		const {store, env} = freshStore();
		await store.setMany({apiKey: 'sk_new_key_NEW2', rotation: {previousKeyMasked: '…OLD1', previousKeyExpiresAt: '2030-01-01T12:00:00.000Z', lastRotatedAt: '2030-01-01T11:00:00.000Z'}});
		const status = keyStatus({env: {...env, PLATFORM_API_KEY: 'sk_env_key_OLD1'}, store, now: () => new Date('2030-01-01T11:00:00.000Z')});
		expect(status.key).toEqual({masked: '…OLD1', source: 'env'});
		expect(status.storedKeyMasked).toBe('…NEW2');
		expect(status.envHoldsPreviousKey).toBe(true);
		expect(JSON.stringify(status)).not.toContain('sk_');
	});

	it('reads the file once for one status', async () => {
		const {store, env} = freshStore();
		await store.setMany({apiKey: 'sk_stored_key_ABCD', rotation: {previousKeyMasked: '…OLD1', previousKeyExpiresAt: '2030-01-01T12:00:00.000Z', lastRotatedAt: '2030-01-01T11:00:00.000Z'}});
		let reads = 0;
		const counted = {path: store.path, all: () => {
			reads++;
			return store.all();
		}};
		const status = keyStatus({env, store: counted, now: () => new Date('2030-01-01T11:30:00.000Z')});
		expect(status).toEqual(keyStatus({env, store, now: () => new Date('2030-01-01T11:30:00.000Z')}));
		expect(status.previousKey?.masked).toBe('…OLD1');
		expect(reads).toBe(1);
	});

	it('has no key when none is set', () => {
		const {store, env} = freshStore();
		expect(keyStatus({env, store})).toEqual({configPath: store.path, envHoldsPreviousKey: false});
	});
});

describe('storeApiKey', () => {
	it('stores a key in the 0600 file, forgets the replaced key\'s overlap and keeps the last rotation time', async () => {
		const {store, env} = freshStore();
		await store.setMany({apiKey: 'sk_before_1111', rotation: {previousKeyMasked: '…OLD1', previousKeyExpiresAt: '2030-01-01T12:00:00.000Z', lastRotatedAt: '2030-01-01T11:00:00.000Z'}});
		const stored = await storeApiKey({key: '  sk_after_2222\n', store, env});
		expect(stored).toEqual({masked: '…2222', path: store.path, changed: true, envOverride: false});
		expect(store.get('apiKey')).toBe('sk_after_2222');
		expect(store.rotation()).toEqual({lastRotatedAt: '2030-01-01T11:00:00.000Z', keySetAt: expect.any(String) as unknown});
		expect(statSync(store.path).mode & 0o777).toBe(0o600);
		expect(await storeApiKey({key: 'sk_after_2222', store, env: {PLATFORM_API_KEY: 'x'}})).toMatchObject({changed: false, envOverride: true});
	});

	it('decides and writes under the lock, so a rotation that lands while it waits is seen, not overwritten blindly', async () => {
		const {store, env} = freshStore();
		await store.setMany({apiKey: 'sk_given_4444', rotation: {lastRotatedAt: '2030-01-01T10:00:00.000Z'}});
		// Another process (its own store) holds the lock and rotates the key while `keys set` runs.
		const other = new ConfigStore(env);
		const {pending} = await other.transaction(async transaction => {
			const started = {pending: storeApiKey({key: 'sk_given_4444', store, env})};
			await transaction.write({apiKey: 'sk_rotated_5555', rotation: {previousKeyMasked: '…4444', previousKeyExpiresAt: '2030-01-01T12:00:00.000Z', lastRotatedAt: '2030-01-01T11:00:00.000Z'}});
			return started;
		});
		const stored = await pending;
		// Read before the rotation, the key would have looked unchanged and the rotated key kept.
		expect(stored).toEqual({masked: '…4444', path: store.path, changed: true, envOverride: false});
		expect(store.get('apiKey')).toBe('sk_given_4444');
		expect(store.rotation()).toEqual({lastRotatedAt: '2030-01-01T11:00:00.000Z', keySetAt: expect.any(String) as unknown});
	});

	it.each(['', '   \n', 'two words', 'line\nbreak'])('refuses %j without storing it', async key => {
		const {store, env} = freshStore();
		await store.set('apiKey', 'sk_kept_3333');
		await expect(storeApiKey({key, store, env})).rejects.toThrow(KeyInvalidError);
		expect(store.get('apiKey')).toBe('sk_kept_3333');
	});
});

describe('time helpers', () => {
	it('formats countdowns with two units at most', () => {
		expect(formatDuration(0)).toBe('0 s');
		expect(formatDuration(1)).toBe('1 s');
		expect(formatDuration(45_000)).toBe('45 s');
		expect(formatDuration(750_000)).toBe('12 min 30 s');
		expect(formatDuration(((4 * 60) + 5) * 60_000)).toBe('4 h 05 min');
		expect(formatDuration(((51 * 60) + 5) * 60_000)).toBe('2 d 3 h');
		expect(formatDuration(-5)).toBe('0 s');
	});

	it('parses ISO 8601 timestamps, reading a missing zone as UTC, and rejects anything else', () => {
		expect(parseIsoTimestamp('2030-01-01T12:00:00Z')?.toISOString()).toBe('2030-01-01T12:00:00.000Z');
		expect(parseIsoTimestamp('2030-01-01T12:00:00.123456+02:00')?.toISOString()).toBe('2030-01-01T10:00:00.123Z');
		expect(parseIsoTimestamp('2030-01-01T12:00:00')?.toISOString()).toBe('2030-01-01T12:00:00.000Z');
		for (const bad of ['tomorrow', '', '2030-02-30T00:00:00Z', '2030-13-01T00:00:00Z', '1700000000', 1_700_000_000, null, undefined, {}]) {
			expect(parseIsoTimestamp(bad)).toBeUndefined();
		}
	});
});
