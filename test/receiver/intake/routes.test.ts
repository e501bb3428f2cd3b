import {Readable} from 'node:stream';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {request} from 'undici';
import type {LocalPlatform} from '../../../source/local-platform/index.js';
import {PlatformClient} from '../../../source/platform/client.js';
import {signWebhookBody} from '../../../source/platform/webhook-signature.js';
import {createReceiver, type WebhookReceiver} from '../../../source/receiver/server.js';
import type {ReceiverEvent} from '../../../source/receiver/events.js';
import {startPlatform} from '../../support/platform.js';
import {newEventId, post, sendSigned, userMessageEvent} from '../helpers.js';

const secret = 'whsec_current_0123456789';
const oldSecret = 'whsec_previous_9876543210';

describe('receiver routes and verification (real HTTP)', () => {
	let platform: LocalPlatform;
	let client: PlatformClient;
	let receiver: WebhookReceiver;
	let url: string;
	const events: ReceiverEvent[] = [];
	const lastOf = <T extends ReceiverEvent['type']>(type: T) => events.filter(event => event.type === type).at(-1) as Extract<ReceiverEvent, {type: T}> | undefined;

	beforeAll(async () => {
		({platform} = await startPlatform());
		client = new PlatformClient({baseUrl: platform.baseUrl, apiKey: platform.apiKey, appId: platform.appId, retries: 0});
		receiver = createReceiver({client, secrets: [secret, oldSecret], toleranceSeconds: 300});
		receiver.on('event', event => events.push(event));
		url = (await receiver.listen({port: 0, host: '127.0.0.1'})).url;
	});

	afterAll(async () => {
		await receiver.close(1000);
		await client.close();
		await platform.close();
	});

	it('answers GET /health with {"status":"ok"}', async () => {
		const response = await request(`${url}/health`);
		expect(response.statusCode).toBe(200);
		expect(response.headers['content-type']).toMatch(/^application\/json/);
		expect(await response.body.json()).toEqual({status: 'ok'});
	});

	it('answers unknown paths 404 and wrong methods 405, always in JSON', async () => {
		const missing = await request(`${url}/nope`);
		expect(missing.statusCode).toBe(404);
		expect(missing.headers['content-type']).toMatch(/^application\/json/);
		expect(await missing.body.json()).toMatchObject({success: false, error: expect.stringContaining('/nope') as unknown});

		const getWebhook = await request(`${url}/webhook`);
		expect(getWebhook.statusCode).toBe(405);
		expect(getWebhook.headers.allow).toBe('POST');
		expect(await getWebhook.body.json()).toMatchObject({success: false});

		const postHealth = await request(`${url}/health`, {method: 'POST', body: '{}'});
		expect(postHealth.statusCode).toBe(405);
		expect(postHealth.headers.allow).toBe('GET, HEAD');
		expect(await postHealth.body.json()).toMatchObject({success: false});
		expect(lastOf('rejected')).toMatchObject({status: 405, reason: 'method-not-allowed', path: '/health', method: 'POST'});
	});

	it('refuses a signed 5 MiB body with 413 before verifying it', async () => {
		const big = Buffer.alloc(5 * 1024 * 1024, 0x20);
		const answer = await post(`${url}/webhook`, big, {'x-platform-signature': signWebhookBody(big, secret), 'x-platform-created-at': String(Math.floor(Date.now() / 1000))});
		expect(answer.status).toBe(413);
		expect(answer.body).toEqual({success: false, error: expect.stringContaining('too large') as unknown});
		expect(lastOf('rejected')).toMatchObject({status: 413, reason: 'body-too-large', remoteAddress: '127.0.0.1'});

		// A streamed body without Content-Length is cut off the same way.
		const chunks = function * () {
			for (let index = 0; index < 5; index++) {
				yield Buffer.alloc(1024 * 1024, 0x20);
			}
		};

		const streamed = await request(`${url}/webhook`, {method: 'POST', body: Readable.from(chunks()), headers: {'x-platform-signature': 'a'.repeat(64), 'x-platform-created-at': String(Math.floor(Date.now() / 1000))}});
		expect(streamed.statusCode).toBe(413);
		expect(await streamed.body.json()).toMatchObject({success: false});
		// The receiver still answers afterwards.
		expect((await request(`${url}/health`)).statusCode).toBe(200);
	});

	it('answers 400 "Missing signature headers" when either header is missing or empty', async () => {
		const body = JSON.stringify(userMessageEvent());
		const now = String(Math.floor(Date.now() / 1000));
		const cases: Array<Record<string, string>> = [
			{},
			{'x-platform-created-at': now},
			{'x-platform-signature': signWebhookBody(body, secret)},
			{'x-platform-signature': '', 'x-platform-created-at': now},
			{'x-platform-signature': signWebhookBody(body, secret), 'x-platform-created-at': ''},
		];
		for (const headers of cases) {
			const answer = await post(`${url}/webhook`, body, headers);
			expect(answer.status).toBe(400);
			expect(answer.body).toEqual({success: false, error: 'Missing signature headers'});
			expect(lastOf('rejected')).toMatchObject({reason: 'missing-signature-headers', status: 400, remoteAddress: '127.0.0.1'});
		}
	});

	it('answers 400 "Invalid signature" and says which check failed', async () => {
		const event = userMessageEvent();
		const raw = JSON.stringify(event);
		const now = Math.floor(Date.now() / 1000);
		const cases: Array<{overrides: {createdAt?: string; signature?: string; raw?: string}; signWith?: string; reason: string}> = [
			{overrides: {}, signWith: 'whsec_someone_else', reason: 'signature-mismatch'},
			// The same JSON re-serialized with other spacing is other bytes: the HMAC covers the exact bytes.
			{overrides: {raw: JSON.stringify(event, null, 2), signature: signWebhookBody(raw, secret)}, reason: 'signature-mismatch'},
			{overrides: {createdAt: String(now - 330)}, reason: 'timestamp-outside-tolerance'},
			{overrides: {createdAt: String(now + 330)}, reason: 'timestamp-outside-tolerance'},
			{overrides: {createdAt: `${now}.5`}, reason: 'malformed-timestamp'},
			{overrides: {createdAt: 'yesterday'}, reason: 'malformed-timestamp'},
			{overrides: {signature: 'not-hex'}, reason: 'malformed-signature'},
		];
		for (const {overrides, signWith, reason} of cases) {
			const signature = overrides.signature ?? (signWith ? signWebhookBody(overrides.raw ?? raw, signWith) : undefined);
			const answer = await sendSigned(`${url}/webhook`, event, secret, {...overrides, ...(signature ? {signature} : {})});
			expect(answer.status, reason).toBe(400);
			expect(answer.body).toEqual({success: false, error: 'Invalid signature'});
			expect(lastOf('rejected')).toMatchObject({reason, status: 400, eventId: event.id});
		}

		// Created-At just inside the tolerance verifies.
		const inside = await sendSigned(`${url}/webhook`, userMessageEvent(), secret, {createdAt: String(now - 290)});
		expect(inside.status).toBe(200);
	});

	it('verifies with any of several endpoint secrets (rotation without losing events)', async () => {
		const event = userMessageEvent();
		const answer = await sendSigned(`${url}/webhook`, event, oldSecret);
		expect(answer).toMatchObject({status: 200, body: {success: true}});
		expect(lastOf('accepted')).toMatchObject({eventId: event.id, secretIndex: 1});
	});

	it('answers 400 with a clear error when the verified body is not a JSON object', async () => {
		const bad = await sendSigned(`${url}/webhook`, {}, secret, {raw: '{"event": '});
		expect(bad).toMatchObject({status: 400, body: {success: false, error: 'Invalid JSON body'}});
		expect(lastOf('rejected')).toMatchObject({reason: 'invalid-json'});
		const array = await sendSigned(`${url}/webhook`, {}, secret, {raw: '[1,2]'});
		expect(array).toMatchObject({status: 400, body: {success: false, error: expect.stringContaining('JSON object') as unknown}});
	});

	it('logs a user message (text and chat id) before answering 200 {"success":true}', async () => {
		const event = userMessageEvent({chatId: 'chat_logged', text: 'What is in the harbour?'});
		let seenBeforeAnswer = false;
		const unsubscribe = receiver.on('event', received => {
			if (received.type === 'accepted' && received.eventId === event.id) {
				seenBeforeAnswer = true;
			}
		});
		const answer = await sendSigned(`${url}/webhook`, event, secret);
		unsubscribe();
		expect(seenBeforeAnswer).toBe(true);
		expect(answer).toEqual({status: 200, body: {success: true}, text: '{"success":true}'});
		expect(lastOf('accepted')).toMatchObject({
			eventId: event.id,
			eventType: 'platform.chat.user-message.created',
			handling: 'logged',
			chatId: 'chat_logged',
			text: 'What is in the harbour?',
			status: 200,
			remoteAddress: '127.0.0.1',
		});
	});

	it('answers 200 to an unhandled event type and logs it as unhandled', async () => {
		const event: Record<string, unknown> = {...userMessageEvent(), event: 'platform.chat.something-else'};
		const answer = await sendSigned(`${url}/webhook`, event, secret);
		expect(answer).toMatchObject({status: 200, body: {success: true}});
		expect(lastOf('accepted')).toMatchObject({eventId: event.id, eventType: 'platform.chat.something-else', handling: 'unhandled'});
	});

	it('accepts an event id once: a redelivery (re-signed, later Created-At) gets 200 and is not processed again', async () => {
		const before = receiver.counters();
		const event = userMessageEvent({text: 'Only once'});
		const first = await sendSigned(`${url}/webhook`, event, secret);
		const again = await sendSigned(`${url}/webhook`, event, secret, {createdAt: String(Math.floor(Date.now() / 1000) + 2)});
		expect(first.status).toBe(200);
		expect(again).toMatchObject({status: 200, body: {success: true}});
		expect(events.filter(received => received.type === 'accepted' && received.eventId === event.id)).toHaveLength(1);
		expect(lastOf('duplicate')).toMatchObject({eventId: event.id, status: 200});
		const after = receiver.counters();
		expect(after.duplicates - before.duplicates).toBe(1);
		expect(after.verified - before.verified).toBe(2);

		// Without an id in the body, X-Platform-Id names the event.
		const headerId = newEventId();
		const withoutId = userMessageEvent();
		delete withoutId.id;
		const raw = JSON.stringify(withoutId);
		const headers = {'x-platform-id': headerId, 'x-platform-signature': signWebhookBody(raw, secret), 'x-platform-created-at': String(Math.floor(Date.now() / 1000))};
		expect((await post(`${url}/webhook`, raw, headers)).status).toBe(200);
		expect((await post(`${url}/webhook`, raw, headers)).status).toBe(200);
		expect(lastOf('duplicate')).toMatchObject({eventId: headerId});
	});

	it('keeps counters that add up: received = verified + rejected', () => {
		const counters = receiver.counters();
		expect(counters.received).toBe(counters.verified + counters.rejected);
		expect(counters.rejected).toBe(events.filter(event => event.type === 'rejected').length);
		expect(counters.verified).toBe(events.filter(event => event.type === 'accepted' || event.type === 'duplicate').length);
	});
});
