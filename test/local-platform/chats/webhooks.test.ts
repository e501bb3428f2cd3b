import {createHmac} from 'node:crypto';
import {describe, expect, it} from 'vitest';
import type {LocalPlatform} from '../../../source/local-platform/index.js';
import type {PlatformClient} from '../../../source/platform/client.js';
import type {ExternalModuleChosenPayload, Message, WebhookEvent} from '../../../source/platform/types.js';
import {clientFor, startPlatform} from '../../support/platform.js';
import {type RecordedRequest, type RecordingServer, sendJson, startRecordingServer} from '../../support/recording-server.js';
import {waitFor} from '../../support/wait.js';
import {defined} from '../../support/defined.js';
import {tempDir} from '../helpers.js';
import {closersAfterEach} from '../../support/cleanups.js';

const secret = 'whsec_local_test_secret';
const userEvent = 'platform.chat.user-message.created';
const chosenEvent = 'platform.chat.external-module.chosen';

function hmac(body: Buffer | string): string {
	return createHmac('sha256', secret).update(body).digest('hex');
}

function parse(request: RecordedRequest): WebhookEvent {
	return JSON.parse(request.body) as WebhookEvent;
}

const cleanup = closersAfterEach();

async function setup(respond: (request: RecordedRequest, index: number) => number): Promise<{platform: LocalPlatform; client: PlatformClient; receiver: RecordingServer}> {
	let count = 0;
	const receiver = await startRecordingServer({handler: (request, response) => {
		sendJson(response, respond(request, count++), {success: true});
	}});
	const platform = (await startPlatform({webhookUrl: `${receiver.url}/webhook`, endpointSecret: secret})).platform;
	const client = clientFor(platform);
	cleanup.push(async () => receiver.close(), async () => platform.close(), async () => client.close());
	return {platform, client, receiver};
}

async function sendMessage(platform: LocalPlatform, client: PlatformClient, text: string): Promise<{chatId: string; message: Message}> {
	const chat = await client.createChat({title: 'Webhooks', assistantId: platform.assistantId});
	const message = await client.createSpaceMessage({assistantId: platform.assistantId, chatId: chat.id, text});
	return {chatId: chat.id, message};
}

describe('webhook delivery', () => {
	it('signs every delivery with HMAC-SHA256 of the raw body and sends all headers', async () => {
		const {platform, client, receiver} = await setup(() => 200);
		const {chatId, message} = await sendMessage(platform, client, 'Hello there');
		expect(message).toMatchObject({chatId, role: 'USER', text: 'Hello there'});
		expect(message.id).toMatch(/^msg_[a-z\d]{24}$/);
		await waitFor(() => platform.deliveries, {until: deliveries => deliveries.length === 2 && deliveries.every(delivery => delivery.state === 'delivered')});
		expect(receiver.requests).toHaveLength(2);

		for (const request of receiver.requests) {
			expect(request.method).toBe('POST');
			expect(request.path).toBe('/webhook');
			expect(request.headers['content-type']).toBe('application/json');
			// Our own HMAC over the exact bytes received.
			expect(request.headers['x-platform-signature']).toBe(hmac(request.raw));
			const event = parse(request);
			expect(Object.keys(event).sort()).toEqual(['companyId', 'createdAt', 'event', 'id', 'payload', 'userId', 'version']);
			expect(event.id).toMatch(/^evt_[a-z\d]{24}$/);
			expect(request.headers['x-platform-id']).toBe(event.id);
			expect(request.headers['x-platform-version']).toBe('1.0.0');
			expect(event.version).toBe('1.0.0');
			expect(request.headers['x-platform-user-id']).toBe(platform.userId);
			expect(request.headers['x-platform-company-id']).toBe(platform.companyId);
			expect(event).toMatchObject({userId: platform.userId, companyId: platform.companyId});
			const createdAtHeader = String(request.headers['x-platform-created-at']);
			expect(createdAtHeader).toMatch(/^\d+$/);
			expect(event.createdAt).toMatch(/^\d+$/);
			expect(Number(createdAtHeader)).toBeGreaterThanOrEqual(Number(event.createdAt));
		}

		const [created, chosen] = receiver.requests.map(request => parse(request));
		expect(created?.event).toBe(userEvent);
		expect(created?.payload).toEqual({chatId, assistantId: platform.assistantId, text: 'Hello there'});
		expect(chosen?.event).toBe(chosenEvent);
		const payload = chosen?.payload as ExternalModuleChosenPayload;
		expect(Object.keys(payload).sort()).toEqual(['assistantId', 'assistantMessage', 'chatid', 'configuration', 'description', 'name', 'userMessage']);
		const latest = await client.getLatestMessage(chatId);
		expect(payload).toEqual({
			name: 'ExternalModule',
			description: expect.any(String) as unknown,
			configuration: {},
			chatid: chatId,
			assistantId: platform.assistantId,
			userMessage: {id: message.id, text: 'Hello there', createdAt: message.createdAt},
			assistantMessage: {id: latest.id, createdAt: latest.createdAt},
		});
		// The assistant message waits for the module: empty, streaming.
		expect(latest.text).toBeUndefined();
		expect(latest).toMatchObject({role: 'ASSISTANT', stoppedStreamingAt: null});
		expect(latest.startedStreamingAt).toEqual(expect.any(String));
		// The space lists the registered external module.
		const space = await client.getSpace(platform.assistantId);
		expect((space.modules ?? []).map(module => module.name)).toEqual(['DocumentSearch', 'ExternalModule']);
	});

	it('retries a delivery the receiver first answers with 503, with the same id and body', async () => {
		const {platform, client, receiver} = await setup((_request, index) => (index === 0 ? 503 : 200));
		await sendMessage(platform, client, 'Retry me');
		const deliveries = await waitFor(() => platform.deliveries, {until: list => list.length === 2 && list.every(delivery => delivery.state !== 'pending')});
		const created = defined(deliveries.find(delivery => delivery.event === userEvent));
		expect(created.state).toBe('delivered');
		expect(created.attempts.map(attempt => attempt.status)).toEqual([503, 200]);
		const copies = receiver.requests.filter(request => parse(request).id === created.eventId);
		expect(copies).toHaveLength(2);
		expect(defined(copies[0]).raw.equals(defined(copies[1]).raw)).toBe(true);
		for (const copy of copies) {
			expect(copy.headers['x-platform-signature']).toBe(hmac(copy.raw));
		}

		expect(deliveries.find(delivery => delivery.event === chosenEvent)?.attempts.map(attempt => attempt.status)).toEqual([200]);
	});

	it('expires a delivery answered with 400 and closes the waiting assistant message', async () => {
		const {platform, client, receiver} = await setup(() => 400);
		const {chatId} = await sendMessage(platform, client, 'Nobody home');
		const latest = await waitFor(async () => client.getLatestMessage(chatId), {until: message => message.stoppedStreamingAt !== null});
		expect(latest.text).toMatch(/external module did not take the event \(HTTP 400\)/);
		expect(platform.deliveries.map(delivery => [delivery.event, delivery.state, delivery.attempts.length])).toEqual([
			[userEvent, 'expired', 1],
			[chosenEvent, 'expired', 1],
		]);
		expect(receiver.requests).toHaveLength(2);
	});

	it('retries five times when there is no answer, then gives up', async () => {
		const gone = await startRecordingServer({handler: (_request, response) => {
			response.end();
		}});
		await gone.close();
		const platform = (await startPlatform({webhookUrl: `${gone.url}/webhook`, endpointSecret: secret, deliveryRetryBaseMs: 2})).platform;
		const client = clientFor(platform);
		cleanup.push(async () => platform.close(), async () => client.close());
		await sendMessage(platform, client, 'Anyone?');
		const deliveries = await waitFor(() => platform.deliveries, {until: list => list.length === 2 && list.every(delivery => delivery.state !== 'pending')});
		for (const delivery of deliveries) {
			expect(delivery.state).toBe('failed');
			expect(delivery.attempts).toHaveLength(6);
			expect(delivery.attempts.every(attempt => attempt.status === null && attempt.error !== undefined)).toBe(true);
		}
	});

	it('refuses webhook URLs that are not on loopback', async () => {
		const platform = (await startPlatform()).platform;
		cleanup.push(async () => platform.close());
		expect(() => {
			platform.setWebhookUrl('http://example.com/webhook');
		}).toThrow(/loopback/);
		platform.setWebhookUrl('http://localhost:9/webhook');
		expect(platform.webhookUrl).toBe('http://localhost:9/webhook');
		platform.setWebhookUrl();
		expect(platform.webhookUrl).toBeUndefined();
	});
});

describe('external module', () => {
	it('answers a chosen-module event through message logs and PATCH, seen by a polling client', async () => {
		const platform = (await startPlatform({endpointSecret: secret})).platform;
		const client = clientFor(platform);
		const files = await tempDir();
		cleanup.push(async () => platform.close(), async () => client.close(), async () => files.remove());

		// The application: verifies the signature, acknowledges at once, answers in the background.
		const moduleClient = clientFor(platform, {userId: undefined, companyId: undefined});
		cleanup.push(async () => moduleClient.close());
		const answers: string[] = [];
		const work: Array<Promise<void>> = [];
		const module = await startRecordingServer({handler: (request, response) => {
			if (request.headers['x-platform-signature'] !== hmac(request.raw)) {
				sendJson(response, 400, {success: false, error: 'invalid signature'});
				return;
			}

			const event = parse(request);
			sendJson(response, 200, {success: true});
			if (event.event !== chosenEvent) {
				return;
			}

			const payload = event.payload as unknown as ExternalModuleChosenPayload;
			const call = {userId: event.userId, companyId: event.companyId};
			work.push((async () => {
				const messageId = payload.assistantMessage.id;
				const searchLog = await moduleClient.createMessageLog({messageId, text: 'Searching the knowledge base', status: 'RUNNING', order: 1}, call);
				const results = (await moduleClient.search({searchString: payload.userMessage.text, searchType: 'COMBINED', limit: 3, chatId: payload.chatid}, call) ?? []) as Array<{text?: string}>;
				const context = results.length === 0 ? 'No relevant documents were found.' : results.map(result => (result.text ?? '').slice(0, 500)).join('\n---\n');
				await moduleClient.updateMessageLog(searchLog.id, {status: 'COMPLETED', text: `Found ${results.length} documents`}, call);
				const answerLog = await moduleClient.createMessageLog({messageId, text: 'Generating a response', status: 'RUNNING', order: 2}, call);
				const completion = await moduleClient.chatCompletion({
					model: 'AZURE_GPT_4o_2024_1120',
					messages: [
						{role: 'system', content: `Answer from the context.\n\nContext:\n${context}`},
						{role: 'user', content: payload.userMessage.text},
					],
					options: {temperature: 0.3},
				}, call);
				await moduleClient.updateMessageLog(answerLog.id, {status: 'COMPLETED', text: 'Response generated'}, call);
				const text = `[module ${payload.name}] ${defined(completion.choices[0]).message.content}`;
				answers.push(text);
				const at = new Date().toISOString();
				await moduleClient.modifyMessage(messageId, {chatId: payload.chatid, text, stoppedStreamingAt: at, completedAt: at}, call);
			})());
		}});
		cleanup.push(async () => module.close());
		platform.setWebhookUrl(`${module.url}/webhook`);

		const chat = await client.createChat({title: 'Module chat', assistantId: platform.assistantId});
		const ferry = 'The night ferry leaves the harbour at 22:15. Tickets are sold on board. Dogs travel free.';
		const filePath = await files.file('ferry.txt', ferry);
		const content = await client.upsertContent({input: {key: 'ferry.txt', title: 'ferry.txt', mimeType: 'text/plain'}, chatId: chat.id});
		await client.putBlob(defined(content.writeUrl), {filePath, contentType: 'text/plain'});
		await client.finalizeContent({input: {key: 'ferry.txt', title: 'ferry.txt', mimeType: 'text/plain', byteSize: Buffer.byteLength(ferry)}, chatId: chat.id, fileUrl: defined(content.readUrl)});
		await waitFor(async () => (await client.searchContent({where: {id: {equals: content.id}}, chatId: chat.id, includeFailedContent: true}))[0]?.ingestionState, {until: state => state === 'FINISHED'});

		await client.createSpaceMessage({assistantId: platform.assistantId, chatId: chat.id, text: 'When does the night ferry leave?'});
		const streaming = await client.getLatestMessage(chat.id);
		expect(streaming.role).toBe('ASSISTANT');
		const reply = await waitFor(async () => client.getLatestMessage(chat.id), {until: message => message.stoppedStreamingAt !== null});
		await Promise.all(work);
		expect(answers).toHaveLength(1);
		expect(reply.text).toBe(answers[0]);
		expect(reply.text).toMatch(/^\[module ExternalModule\] \(local model\) The night ferry leaves the harbour at 22:15\./);
		expect(reply.completedAt).toEqual(expect.any(String));

		expect(platform.messageLogs(defined(reply.id))).toEqual([
			expect.objectContaining({order: 1, status: 'COMPLETED', text: 'Found 1 documents'}),
			expect.objectContaining({order: 2, status: 'COMPLETED', text: 'Response generated'}),
		]);
		expect(platform.completions.at(-1)).toMatchObject({temperature: 0.3, ignoredFields: [], via: 'local-model', source: 'api'});
		const history = await client.getChatMessages(chat.id);
		expect(history.totalCount).toBe(2);
		expect(history.messages.map(message => [message.role, message.text])).toEqual([
			['USER', 'When does the night ferry leave?'],
			['ASSISTANT', answers[0]],
		]);
	});
});
