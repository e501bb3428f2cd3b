import {statSync} from 'node:fs';
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import {apiKeySupplier} from '../../source/config/resolve.js';
import {ConfigStore, type ConfigTransaction} from '../../source/config/store.js';
import {describeError, joinText} from '../../source/cli/error-message.js';
import {CoreError} from '../../source/core-error.js';
import {KeyRotationError} from '../../source/keys/errors.js';
import {rotateApiKey, type RotationEvent} from '../../source/keys/rotate.js';
import {ManualClock, type LocalPlatform} from '../../source/local-platform/index.js';
import {clientFor, startPlatform} from '../support/platform.js';
import {PlatformApiError} from '../../source/platform/errors.js';
import type {PlatformClient} from '../../source/platform/client.js';
import {freshStore} from './core-support.js';

/** The sentence and next step the CLI prints for an error (the wording lives in the messages tables). */
const worded = (error: unknown) => joinText(describeError(error));

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
