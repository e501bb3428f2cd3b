import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {KeyRotationError} from '../../source/keys/errors.js';
import {rotateApiKey, type RotationOutcome} from '../../source/keys/rotate.js';
import {startRecordingServer, type RecordingServer} from '../support/recording-server.js';
import {PlatformClient} from '../../source/platform/client.js';
import {freshStore} from './core-support.js';

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
