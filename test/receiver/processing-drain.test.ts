import {PassThrough} from 'node:stream';
import {request} from 'undici';
import {describe, expect, it} from 'vitest';
import {signWebhookBody} from '../../source/platform/webhook-signature.js';
import {PlatformClient} from '../../source/platform/client.js';
import {apologyText} from '../../source/receiver/answer/answer-text.js';
import {createReceiver} from '../../source/receiver/server.js';
import type {ReceiverEvent} from '../../source/receiver/events.js';
import {defined} from '../support/defined.js';
import {clientFor, startPlatform} from '../support/platform.js';
import {waitFor} from '../support/wait.js';
import {chosenEvent} from './helpers.js';
import {answered, ask, closedAfterEach, stagesOf} from './processing-support.js';

describe('bounded queue and drain', () => {
	const {harness, startModel} = closedAfterEach();

	it('acknowledges a chosen event without waiting for its processing, and runs at most --concurrency jobs', async () => {
		const model = await startModel({delayMs: 400});
		const current = await harness({llmUrl: model.url, concurrency: 2});
		const chats = await Promise.all([1, 2, 3, 4].map(async index => current.user.createChat({title: `Chat ${index}`, assistantId: current.platform.assistantId})));
		for (const chat of chats) {
			await ask(current, chat.id, 'Is the lamp lit?');
		}

		// Every chosen delivery was answered 200 while the model was still holding completions.
		await waitFor(() => current.platform.deliveries.filter(record => record.event === 'platform.chat.external-module.chosen' && record.state === 'delivered').length, {until: count => count === 4, what: 'four acknowledged chosen events'});
		expect(current.receiver.counters().answered).toBeLessThan(4);
		await Promise.all(chats.map(async chat => answered(current, chat.id)));
		expect(model.maxActive).toBe(2);
		expect(current.receiver.counters()).toMatchObject({answered: 4, processing: 0});
	});

	it('answers 503 when the queue is full, without taking the id, so the platform\'s redelivery is accepted later', async () => {
		// The first completion is held until the second delivery was refused: however slow the
		// machine, that delivery finds the only slot taken (a 300 ms delay did not, under load).
		let open: () => void = () => undefined;
		const gate = new Promise<void>(resolve => {
			open = resolve;
		});
		const model = await startModel({gate});
		const {platform} = await startPlatform({llmUrl: model.url});
		const user = clientFor(platform);
		const receiverClient = new PlatformClient({baseUrl: platform.baseUrl, apiKey: platform.apiKey, appId: platform.appId, retries: 0});
		const receiver = createReceiver({client: receiverClient, secrets: [platform.endpointSecret], concurrency: 1, maxPending: 0});
		const events: ReceiverEvent[] = [];
		receiver.on('event', event => {
			events.push(event);
			if (event.type === 'rejected' && event.reason === 'busy') {
				open();
			}
		});
		platform.setWebhookUrl(`${(await receiver.listen({port: 0})).url}/webhook`);
		try {
			const first = await user.createChat({title: 'First', assistantId: platform.assistantId});
			const second = await user.createChat({title: 'Second', assistantId: platform.assistantId});
			await user.createSpaceMessage({assistantId: platform.assistantId, chatId: first.id, text: 'One?'});
			await waitFor(() => model.calls, {until: calls => calls === 1, what: 'the first completion'});
			await user.createSpaceMessage({assistantId: platform.assistantId, chatId: second.id, text: 'Two?'});
			for (const chat of [first, second]) {
				const message = await waitFor(async () => user.getLatestMessage(chat.id), {until: latest => Boolean(latest.stoppedStreamingAt), what: `the answer in ${chat.id}`});
				expect(message.text).toBe('An answer from the test model.');
			}

			const busy = events.find(event => event.type === 'rejected' && event.reason === 'busy') as Extract<ReceiverEvent, {type: 'rejected'}>;
			expect(busy).toMatchObject({status: 503});
			expect(events.filter(event => event.type === 'accepted' && event.eventId === busy.eventId)).toHaveLength(1);
			const delivery = defined(platform.deliveries.find(record => record.eventId === busy.eventId), 'the delivery');
			expect(delivery.attempts[0]?.status).toBe(503);
			expect(delivery.state).toBe('delivered');
		} finally {
			await receiver.close(0);
			await receiverClient.close();
			await user.close();
			await platform.close();
		}
	});

	it('lets in-flight jobs finish within the drain time', async () => {
		const model = await startModel({delayMs: 300});
		const h = await harness({llmUrl: model.url});
		const chat = await h.user.createChat({title: 'Drain', assistantId: h.platform.assistantId});
		const {assistantMessageId} = await ask(h, chat.id, 'Is the lamp lit?');
		await waitFor(() => model.calls, {until: calls => calls === 1, what: 'the completion call'});
		const result = await h.receiver.close(10_000);
		expect(result.cutOff).toBe(0);
		expect(h.platform.message(assistantMessageId)).toMatchObject({text: 'An answer from the test model.'});
		expect(h.events.at(-1)).toMatchObject({type: 'stopped', cutOff: 0, counters: {answered: 1}});
	});

	it('cuts off jobs still open at the drain deadline: open logs FAILED, apology written, none left RUNNING', async () => {
		const model = await startModel({delayMs: 5000});
		const h = await harness({llmUrl: model.url, concurrency: 1});
		const first = await h.user.createChat({title: 'Slow one', assistantId: h.platform.assistantId});
		const second = await h.user.createChat({title: 'Queued one', assistantId: h.platform.assistantId});
		const running = await ask(h, first.id, 'Is the lamp lit?');
		const queued = await ask(h, second.id, 'Is the lamp lit?');
		await waitFor(() => model.calls, {until: calls => calls === 1, what: 'the completion call'});
		await waitFor(() => h.events.filter(event => event.type === 'accepted' && event.chatId === second.id && event.handling === 'queued').length, {until: count => count === 1, what: 'the second job queued'});
		const result = await h.receiver.close(50);
		expect(result.cutOff).toBe(2);
		for (const {assistantMessageId} of [running, queued]) {
			expect(h.platform.messageLogs(assistantMessageId).filter(log => log.status === 'RUNNING')).toEqual([]);
			expect(h.platform.message(assistantMessageId)).toMatchObject({text: apologyText, stoppedStreamingAt: expect.any(String) as unknown});
		}

		expect(h.platform.messageLogs(running.assistantMessageId).map(log => log.status)).toEqual(['COMPLETED', 'FAILED']);
		// The queued job never started: no log was opened, only the apology.
		expect(h.platform.messageLogs(queued.assistantMessageId)).toEqual([]);
		const failed = defined(stagesOf(h.events, first.id).at(-1), 'the failure');
		expect(failed).toMatchObject({stage: 'failed', cleanup: {logsFailed: 1, apologyWritten: true}});
		expect(failed.reason).toMatch(/drain/);
	});
});

describe('during the drain', () => {
	it('answers a delivery that arrives while draining with 503 and Retry-After (the platform retries it), without accepting its id', async () => {
		const {platform} = await startPlatform();
		const client = clientFor(platform);
		const receiver = createReceiver({client, secrets: [platform.endpointSecret]});
		const events: ReceiverEvent[] = [];
		receiver.on('event', event => events.push(event));
		const {url} = await receiver.listen({port: 0});
		try {
			const event = chosenEvent({chatId: 'chat_late', text: 'late', assistantMessageId: 'msg_late', userId: platform.userId, companyId: platform.companyId});
			const raw = JSON.stringify(event);
			const body = new PassThrough();
			// The request starts before the drain and its body ends after it.
			const answer = request(`${url}/webhook`, {
				method: 'POST',
				body,
				headers: {
					'content-type': 'application/json',
					'x-platform-signature': signWebhookBody(raw, platform.endpointSecret),
					'x-platform-created-at': String(Math.floor(Date.now() / 1000)),
				},
			});
			body.write(raw.slice(0, 10));
			await waitFor(() => receiver.counters().received, {until: count => count === 1, what: 'the request to arrive'});
			const closing = receiver.close(1000);
			body.end(raw.slice(10));
			const response = await answer;
			expect(response.statusCode).toBe(503);
			expect(response.headers['retry-after']).toBe('5');
			expect(await response.body.json()).toEqual({success: false, error: 'Receiver shutting down, retry later'});
			await closing;
			expect(events.find(received => received.type === 'rejected')).toMatchObject({reason: 'shutting-down', status: 503});
			expect(events.some(received => received.type === 'accepted')).toBe(false);
		} finally {
			await receiver.close(0);
			await client.close();
			await platform.close();
		}
	});
});
