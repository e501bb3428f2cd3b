import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {PlatformClient} from '../../source/platform/client.js';
import {createReceiver, type WebhookReceiver} from '../../source/receiver/server.js';
import type {ReceiverEvent} from '../../source/receiver/events.js';
import {sendSigned, userMessageEvent} from '../receiver/helpers.js';

const secret = 'whsec_no_id_test';

describe('an event without an id', () => {
	let receiver: WebhookReceiver;
	let client: PlatformClient;
	let url = '';
	const events: ReceiverEvent[] = [];

	beforeAll(async () => {
		// Only loopback is ever called; these events make no platform call.
		client = new PlatformClient({baseUrl: 'http://127.0.0.1:9', apiKey: 'key', appId: 'app', retries: 0});
		receiver = createReceiver({client, secrets: [secret], toleranceSeconds: 300});
		receiver.on('event', event => events.push(event));
		url = `${(await receiver.listen({port: 0, host: '127.0.0.1'})).url}/webhook`;
	});

	afterAll(async () => {
		await receiver.close();
		await client.close();
	});

	it('gets an id derived from its body, so a redelivery of the same body is a duplicate and a different body is not', async () => {
		const event = userMessageEvent({chatId: 'chat_1', text: 'hello'});
		delete event.id;
		const raw = JSON.stringify(event);
		expect((await sendSigned(url, event, secret, {raw})).status).toBe(200);
		expect((await sendSigned(url, event, secret, {raw})).status).toBe(200);
		const other = JSON.stringify({...event, payload: {chatId: 'chat_1', text: 'another'}});
		expect((await sendSigned(url, event, secret, {raw: other})).status).toBe(200);
		const kinds = events.filter(item => item.type === 'accepted' || item.type === 'duplicate').map(item => item.type);
		expect(kinds).toEqual(['accepted', 'duplicate', 'accepted']);
		const stored = await receiver.backend.list({});
		expect(stored).toHaveLength(2);
		expect(stored.every(item => /^body-[\da-f]{32}$/.test(item.id))).toBe(true);
	});
});
