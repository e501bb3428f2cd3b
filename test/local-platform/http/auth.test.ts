import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {ManualClock, type LocalPlatform} from '../../../source/local-platform/index.js';
import {PlatformApiError} from '../../../source/platform/errors.js';
import {clientFor, startPlatform} from '../../support/platform.js';
import {authHeaders} from '../helpers.js';

type ErrorBody = {error: {message: string; code: string}};

describe('authentication', () => {
	let platform: LocalPlatform;

	beforeAll(async () => {
		platform = (await startPlatform()).platform;
	});

	afterAll(async () => {
		await platform.close();
	});

	const getSpace = async (headers: Record<string, string>) => fetch(`${platform.baseUrl}/space/${platform.assistantId}`, {headers});

	it('accepts a complete set of credentials and answers the default space', async () => {
		const response = await getSpace(authHeaders(platform));
		expect(response.status).toBe(200);
		expect(response.headers.get('request-id')).toMatch(/^req_\w+$/);
		expect(await response.json()).toMatchObject({
			id: platform.assistantId,
			languageModel: 'AZURE_GPT_4o_2024_1120',
			chatUpload: 'ENABLED',
			modules: [expect.objectContaining({name: 'DocumentSearch'})],
		});
		expect(platform.assistantId).toMatch(/^assistant_[a-z\d]{24}$/);
	});

	it.each([
		['no Authorization header', {authorization: undefined}, 401, /Authorization/],
		['a malformed Authorization header', {authorization: 'Basic abc'}, 401, /Authorization/],
		['an unknown key', {authorization: 'Bearer sk_live_wrong'}, 401, /Invalid API key/],
		['no x-app-id', {'x-app-id': undefined}, 400, /x-app-id/],
		['another app id', {'x-app-id': 'app_other'}, 401, /app/],
		['no x-user-id', {'x-user-id': undefined}, 400, /x-user-id/],
		['no x-company-id', {'x-company-id': undefined}, 400, /x-company-id/],
	] as const)('refuses %s', async (_name, change, status, message) => {
		const merged: Record<string, string | undefined> = {...authHeaders(platform), ...change};
		const headers = Object.fromEntries(Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== undefined));

		const response = await getSpace(headers);
		expect(response.status).toBe(status);
		expect(response.headers.get('request-id')).toMatch(/^req_/);
		const body = (await response.json()) as ErrorBody;
		expect(body.error.message).toMatch(message);
		expect(typeof body.error.code).toBe('string');
	});

	it('raises PlatformApiError with status and request id through the client', async () => {
		const client = clientFor(platform, {apiKey: 'sk_live_not_a_key'});
		const error = await client.getSpace(platform.assistantId).catch((error_: unknown) => error_);
		expect(error).toBeInstanceOf(PlatformApiError);
		expect(error).toMatchObject({status: 401, platformMessage: 'Invalid API key', method: 'GET'});
		expect((error as PlatformApiError).requestId).toMatch(/^req_/);
		await client.close();
	});

	it('answers unknown routes with 404, wrong methods with 405 and bad JSON with 400, in the error shape', async () => {
		const notFound = await fetch(`${platform.baseUrl}/nope`, {headers: authHeaders(platform)});
		expect(notFound.status).toBe(404);
		expect(((await notFound.json()) as ErrorBody).error.code).toBe('NOT_FOUND');
		const wrongMethod = await fetch(`${platform.baseUrl}/space/chat`, {headers: authHeaders(platform)});
		expect(wrongMethod.status).toBe(405);
		const badJson = await fetch(`${platform.baseUrl}/space/chat`, {method: 'POST', headers: authHeaders(platform), body: '{oops'});
		expect(badJson.status).toBe(400);
		const missingField = await fetch(`${platform.baseUrl}/space/chat`, {method: 'POST', headers: authHeaders(platform), body: JSON.stringify({title: 'x'})});
		expect(missingField.status).toBe(400);
		expect(((await missingField.json()) as ErrorBody).error.message).toMatch(/assistantId/);
		const health = await fetch(`${platform.baseUrl}/health`);
		expect(await health.json()).toEqual({status: 'ok'});
	});

	it('records requests with method, path, headers and parsed body', async () => {
		const client = clientFor(platform);
		const chat = await client.createChat({title: 'Logged', assistantId: platform.assistantId});
		const entry = platform.requests.findLast(request => request.path === '/space/chat' && request.status === 201);
		expect(entry).toMatchObject({
			method: 'POST',
			body: {title: 'Logged', assistantId: platform.assistantId},
			headers: expect.objectContaining({'x-app-id': platform.appId, 'x-api-version': '2023-12-06'}) as unknown,
		});
		expect(chat.id).toMatch(/^chat_[a-z\d]{24}$/);
		await client.close();
	});
});

describe('key rotation', () => {
	it('keeps the old key valid inside the overlap, refuses it after, and rotates again with the new key', async () => {
		// Time is a manual clock: the overlap passes when the test moves it, not in real time.
		const clock = new ManualClock();
		const platform = (await startPlatform({keyOverlapMs: 400, clock})).platform;
		try {
			const firstKey = platform.apiKey;
			const client = clientFor(platform, {apiKey: firstKey});
			const rotation = await client.rotateKey();
			expect(rotation.new_key).toMatch(/^sk_live_[A-Za-z\d]{40}$/);
			expect(rotation.new_key).not.toBe(firstKey);
			expect(platform.apiKey).toBe(rotation.new_key);
			const expiresAt = Date.parse(String(rotation.old_key_expires_at));
			expect(new Date(expiresAt).toISOString()).toBe(rotation.old_key_expires_at);

			// Inside the overlap both keys work.
			expect((await fetch(`${platform.baseUrl}/space/${platform.assistantId}`, {headers: authHeaders(platform, firstKey)})).status).toBe(200);
			expect((await fetch(`${platform.baseUrl}/space/${platform.assistantId}`, {headers: authHeaders(platform, rotation.new_key)})).status).toBe(200);

			// Rotating again with the new key: the first key keeps its own expiry.
			const newClient = clientFor(platform, {apiKey: rotation.new_key});
			const second = await newClient.rotateKey();
			expect(second.new_key).not.toBe(rotation.new_key);

			clock.advance(399);
			expect((await fetch(`${platform.baseUrl}/space/${platform.assistantId}`, {headers: authHeaders(platform, firstKey)})).status).toBe(200);
			clock.advance(expiresAt - clock.now());
			const expired = await fetch(`${platform.baseUrl}/space/${platform.assistantId}`, {headers: authHeaders(platform, firstKey)});
			expect(expired.status).toBe(401);
			expect(((await expired.json()) as ErrorBody).error.message).toMatch(/expired/);
			const error = await client.getSpace(platform.assistantId).catch((error_: unknown) => error_);
			expect(error).toMatchObject({status: 401});

			const newest = clientFor(platform, {apiKey: second.new_key});
			expect((await newest.getSpace(platform.assistantId)).id).toBe(platform.assistantId);
			await Promise.all([client.close(), newClient.close(), newest.close()]);
		} finally {
			await platform.close();
		}
	});

	it('only needs the bearer key for rotation', async () => {
		const platform = (await startPlatform()).platform;
		try {
			const before = Date.now();
			const response = await fetch(`${platform.baseUrl}/v2/keys/rotate`, {
				method: 'POST',
				headers: {authorization: `Bearer ${platform.apiKey}`, 'content-type': 'application/json'},
			});
			expect(response.status).toBe(200);
			const body = (await response.json()) as {new_key: string; old_key_expires_at: string};
			// Default overlap: 24 hours from the rotation.
			expect(Date.parse(body.old_key_expires_at)).toBeGreaterThanOrEqual(before + (24 * 3600 * 1000) - 1);
			expect(Date.parse(body.old_key_expires_at)).toBeLessThanOrEqual(Date.now() + (24 * 3600 * 1000));
		} finally {
			await platform.close();
		}
	});
});

describe('fault injection', () => {
	it('answers a share of API calls with 429/503 and Retry-After, which the client retries away', async () => {
		const platform = (await startPlatform({failRate: 0.3, seed: 7, faultRetryAfterSeconds: 0})).platform;
		try {
			const client = clientFor(platform, {retries: 8});
			for (let index = 0; index < 15; index++) {
				 
				const chat = await client.createChat({title: `Chat ${index}`, assistantId: platform.assistantId});
				 
				expect((await client.getChatMessages(chat.id)).messages).toEqual([]);
			}

			const faults = platform.requests.filter(request => request.fault !== undefined);
			expect(faults.length).toBeGreaterThan(0);
			expect(new Set(faults.map(request => request.status))).toEqual(new Set([429, 503]));
			// Exactly 15 chats exist: a fault is answered before anything is processed.
			expect(platform.requests.filter(request => request.path === '/space/chat' && request.status === 201)).toHaveLength(15);

			// /health is never failed.
			for (let index = 0; index < 10; index++) {
				 
				expect((await fetch(`${platform.baseUrl}/health`)).status).toBe(200);
			}

			await client.close();
		} finally {
			await platform.close();
		}
	});

	it('is deterministic for a seed', async () => {
		const pattern = async () => {
			const platform = (await startPlatform({failRate: 0.5, seed: 42, faultRetryAfterSeconds: 0})).platform;
			try {
				const statuses: number[] = [];
				for (let index = 0; index < 12; index++) {
					 
					statuses.push((await fetch(`${platform.baseUrl}/space/${platform.assistantId}`, {headers: authHeaders(platform)})).status);
				}

				return statuses;
			} finally {
				await platform.close();
			}
		};

		const first = await pattern();
		expect(first.some(status => status !== 200)).toBe(true);
		expect(await pattern()).toEqual(first);
	});
});
