import {describe, expect, it} from 'vitest';
import {currentApiKey} from '../../source/keys/current.js';
import {keyStatus} from '../../source/keys/status.js';
import {freshStore} from './core-support.js';

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
