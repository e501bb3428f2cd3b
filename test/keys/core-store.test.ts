import {statSync} from 'node:fs';
import {describe, expect, it} from 'vitest';
import {ConfigStore} from '../../source/config/store.js';
import {KeyInvalidError} from '../../source/keys/errors.js';
import {storeApiKey} from '../../source/keys/set.js';
import {freshStore} from './core-support.js';

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
