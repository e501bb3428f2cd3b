import {mkdtemp, rm, stat, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {PassThrough} from 'node:stream';
import {request} from 'undici';
import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest';
import {signWebhookBody} from '../../source/platform/webhook-signature.js';
import type {LocalPlatform, RequestRecord} from '../../source/local-platform/index.js';
import {PlatformClient} from '../../source/platform/client.js';
import type {Message} from '../../source/platform/types.js';
import {apologyText, buildContext, noResultsContext} from '../../source/receiver/answer/answer-text.js';
import {createReceiver, type WebhookReceiver} from '../../source/receiver/server.js';
import type {ReceiverEvent, StageEvent} from '../../source/receiver/events.js';
import {defined} from '../support/defined.js';
import {clientFor, startPlatform} from '../support/platform.js';
import {waitFor} from '../support/wait.js';
import {chosenEvent, sendSigned, startModel} from './helpers.js';

/** Paragraphs longer than 500 characters, so the context cut shows. */
const lighthouse = [
	`The harbour lighthouse keeper ${'polishes the great lamp every evening and records the weather, the passing ships and the state of the tide in a leather log book that has been kept since the tower was first lit, '.repeat(4)}and that is the end of the first paragraph.`,
	'',
	`The harbour lighthouse lamp ${'turns once every twelve seconds and its beam reaches twenty-two nautical miles across the bay on a clear night, guiding fishing boats past the rocks at the harbour mouth, '.repeat(4)}which ends the second paragraph.`,
].join('\n');

const receiverPaths = (request: RequestRecord) => request.method !== 'GET'
	&& (request.path === '/message-log' || request.path.startsWith('/message-log/') || request.path === '/search/search' || request.path === '/openai/chat/completions' || request.path.startsWith('/messages/'));

type Harness = {
	platform: LocalPlatform;
	/** The test's own client (acts as the platform user). */
	user: PlatformClient;
	/** The receiver's client: no default user or company, so every call must name the event's. */
	receiverClient: PlatformClient;
	receiver: WebhookReceiver;
	events: ReceiverEvent[];
	close(): Promise<void>;
};

async function harness(options: {llmUrl?: string; concurrency?: number; latencyMs?: number} = {}): Promise<Harness> {
	const {platform} = await startPlatform({...(options.llmUrl ? {llmUrl: options.llmUrl} : {}), ...(options.latencyMs ? {latencyMs: options.latencyMs} : {})});
	const user = clientFor(platform);
	const receiverClient = new PlatformClient({baseUrl: platform.baseUrl, apiKey: platform.apiKey, appId: platform.appId, retries: 1, retryBaseMs: 10, retryCapMs: 20});
	const receiver = createReceiver({client: receiverClient, secrets: [platform.endpointSecret], concurrency: options.concurrency ?? 8, cleanupTimeoutMs: 5000});
	const events: ReceiverEvent[] = [];
	receiver.on('event', event => events.push(event));
	const {url} = await receiver.listen({port: 0});
	platform.setWebhookUrl(`${url}/webhook`);
	return {
		platform,
		user,
		receiverClient,
		receiver,
		events,
		async close() {
			await receiver.close(0);
			await receiverClient.close();
			await user.close();
			await platform.close();
		},
	};
}

/** Sends a space message and returns the ids of the user and assistant messages. */
async function ask(h: Harness, chatId: string, text: string): Promise<{assistantMessageId: string}> {
	await h.user.createSpaceMessage({assistantId: h.platform.assistantId, chatId, text});
	const history = await h.user.getChatMessages(chatId);
	const assistant = history.messages.filter(message => message.role === 'ASSISTANT').at(-1);
	return {assistantMessageId: defined(assistant?.id, 'the assistant message')};
}

async function answered(h: Harness, chatId: string): Promise<Message> {
	return waitFor(async () => h.user.getLatestMessage(chatId), {until: message => Boolean(message.stoppedStreamingAt), what: `the answer in ${chatId}`});
}

const stagesOf = (events: ReceiverEvent[], chatId: string) => events.filter((event): event is StageEvent => event.type === 'stage' && event.chatId === chatId);

describe('chosen-module processing against the local platform', () => {
	let h: Harness;
	let files: string;

	beforeAll(async () => {
		h = await harness();
		files = await mkdtemp(join(tmpdir(), 'receiver-files-'));
	});

	afterAll(async () => {
		await h.close();
		await rm(files, {recursive: true, force: true});
	});

	it('runs the exact sequence, with the exact payloads, for the event\'s user and company', async () => {
		const chat = await h.user.createChat({title: 'Lighthouse', assistantId: h.platform.assistantId});
		const filePath = join(files, 'lighthouse.md');
		await writeFile(filePath, lighthouse);
		const input = {key: 'lighthouse.md', title: 'lighthouse.md', mimeType: 'text/markdown'};
		const content = await h.user.upsertContent({input, chatId: chat.id});
		await h.user.putBlob(defined(content.writeUrl, 'writeUrl'), {filePath, contentType: 'text/markdown'});
		await h.user.finalizeContent({input: {...input, byteSize: (await stat(filePath)).size}, chatId: chat.id, fileUrl: defined(content.readUrl, 'readUrl')});
		await waitFor(async () => h.user.searchContent({where: {id: {equals: content.id}}, chatId: chat.id, includeFailedContent: true}), {until: found => found[0]?.ingestionState === 'FINISHED', what: 'ingestion'});

		const question = 'How far does the harbour lighthouse lamp reach?';
		// What the search gives for this question, to compute the expected context independently.
		const results = await h.user.search({searchString: question, searchType: 'COMBINED', limit: 3, chatId: chat.id}) as Array<{text?: string}> | null;
		expect(results?.length).toBeGreaterThan(0);
		expect(results?.some(result => (result.text?.length ?? 0) > 500)).toBe(true);
		const expectedContext = results?.map(result => result.text?.slice(0, 500)).join('\n---\n');

		const requestsBefore = h.platform.requests.length;
		const {assistantMessageId} = await ask(h, chat.id, question);
		const message = await answered(h, chat.id);
		const calls = h.platform.requests.slice(requestsBefore).filter(receiverPaths);
		expect(calls.map(call => `${call.method} ${call.path.replace(/msglog_\w+/, 'LOG')}`)).toEqual([
			'POST /message-log',
			'POST /search/search',
			'PATCH /message-log/LOG',
			'POST /message-log',
			'POST /openai/chat/completions',
			'PATCH /message-log/LOG',
			`PATCH /messages/${assistantMessageId}`,
		]);
		for (const call of calls) {
			expect(call.headers['x-user-id']).toBe(h.platform.userId);
			expect(call.headers['x-company-id']).toBe(h.platform.companyId);
			expect(call.headers.authorization).toBe(`Bearer ${h.platform.apiKey}`);
			expect(call.headers['x-app-id']).toBe(h.platform.appId);
		}

		const [createSearchLog, search, completeSearchLog, createGenerateLog, completion, completeGenerateLog, modify] = calls;
		expect(createSearchLog?.body).toEqual({messageId: assistantMessageId, text: 'Searching the knowledge base…', status: 'RUNNING', order: 1});
		expect(search?.body).toEqual({searchString: question, searchType: 'COMBINED', limit: 3, chatId: chat.id});
		expect(completeSearchLog?.body).toEqual({status: 'COMPLETED', text: `Found ${results?.length} document${results?.length === 1 ? '' : 's'}`});
		expect(createGenerateLog?.body).toEqual({messageId: assistantMessageId, text: 'Generating the response…', status: 'RUNNING', order: 2});
		const completionBody = completion?.body as {model: string; messages: Array<{role: string; content: string}>; options: Record<string, unknown>; temperature?: unknown};
		expect(completionBody.model).toBe('AZURE_GPT_4o_2024_1120');
		expect(completionBody.options).toEqual({temperature: 0.3});
		expect(completionBody).not.toHaveProperty('temperature');
		expect(completionBody.messages).toHaveLength(2);
		expect(completionBody.messages[0]?.role).toBe('system');
		expect(completionBody.messages[0]?.content).toMatch(/answer .*using only the context/i);
		expect(completionBody.messages[0]?.content.endsWith(`\n${expectedContext}`)).toBe(true);
		expect(completionBody.messages[1]).toEqual({role: 'user', content: question});
		expect(completeGenerateLog?.body).toEqual({status: 'COMPLETED', text: 'Response generated'});
		const record = defined(h.platform.completions.at(-1), 'a completion');
		expect(record.temperature).toBe(0.3);
		expect(record.ignoredFields).toEqual([]);
		const modifyBody = modify?.body as Record<string, unknown>;
		expect(modifyBody).toEqual({chatId: chat.id, text: record.answer, stoppedStreamingAt: expect.any(String) as unknown, completedAt: expect.any(String) as unknown});
		expect(Number.isNaN(Date.parse(modifyBody.stoppedStreamingAt as string))).toBe(false);

		expect(message.text).toBe(record.answer);
		expect(h.platform.messageLogs(assistantMessageId).map(log => [log.order, log.status, log.text])).toEqual([
			[1, 'COMPLETED', `Found ${results?.length} document${results?.length === 1 ? '' : 's'}`],
			[2, 'COMPLETED', 'Response generated'],
		]);
		const stages = stagesOf(h.events, chat.id);
		expect(stages.map(stage => stage.stage)).toEqual(['searching', 'generating', 'answered']);
		expect(stages.at(-1)).toMatchObject({documents: results?.length, durationMs: expect.any(Number) as unknown});
		// The user message event arrived first and was logged with its text and chat id.
		expect(h.events.find(event => event.type === 'accepted' && event.eventType === 'platform.chat.user-message.created' && event.chatId === chat.id)).toMatchObject({text: question, handling: 'logged'});
	});

	it('uses the fixed sentence as context and reports 0 documents when the search finds nothing', async () => {
		const chat = await h.user.createChat({title: 'Empty', assistantId: h.platform.assistantId});
		const requestsBefore = h.platform.requests.length;
		const {assistantMessageId} = await ask(h, chat.id, 'Zebras quantum xylophone?');
		await answered(h, chat.id);
		const calls = h.platform.requests.slice(requestsBefore).filter(receiverPaths);
		const completion = calls.find(call => call.path === '/openai/chat/completions')?.body as {messages: Array<{content: string}>};
		expect(completion.messages[0]?.content.endsWith(`\n${noResultsContext}`)).toBe(true);
		expect(noResultsContext).toMatch(/no relevant documents were found/i);
		expect(h.platform.messageLogs(assistantMessageId)[0]).toMatchObject({status: 'COMPLETED', text: 'Found 0 documents'});
	});

	it('does not process a redelivered chosen event again', async () => {
		const chat = await h.user.createChat({title: 'Twice', assistantId: h.platform.assistantId});
		const {assistantMessageId} = await ask(h, chat.id, 'Where is the lighthouse?');
		await answered(h, chat.id);
		const delivery = defined(h.platform.deliveries.find(record => record.event === 'platform.chat.external-module.chosen' && record.body.includes(chat.id)), 'the delivery');
		const requestsBefore = h.platform.requests.length;
		// The platform redelivers the exact same bytes, signed again at send time.
		const redelivery = await sendSigned(`${defined(h.receiver.url)}/webhook`, JSON.parse(delivery.body) as Record<string, unknown>, h.platform.endpointSecret, {raw: delivery.body});
		expect(redelivery).toMatchObject({status: 200, body: {success: true}});
		expect(h.events.at(-1)).toMatchObject({type: 'duplicate', eventId: delivery.eventId, chatId: chat.id});
		expect(h.platform.requests.length).toBe(requestsBefore);
		expect(h.platform.messageLogs(assistantMessageId)).toHaveLength(2);
	});

	it('makes no platform call for a chosen event lacking the ids it needs, and logs it as invalid', async () => {
		const event = chosenEvent({chatId: 'chat_x', text: 'hi', assistantMessageId: 'msg_x', userId: h.platform.userId, companyId: h.platform.companyId});
		delete (event.payload as {assistantMessage?: unknown}).assistantMessage;
		delete (event as {companyId?: unknown}).companyId;
		const requestsBefore = h.platform.requests.length;
		const failedBefore = h.receiver.counters().failed;
		const answer = await sendSigned(`${defined(h.receiver.url)}/webhook`, event, h.platform.endpointSecret);
		expect(answer).toMatchObject({status: 200, body: {success: true}});
		expect(h.events.at(-1)).toMatchObject({type: 'accepted', handling: 'invalid', missing: ['companyId', 'payload.assistantMessage.id']});
		// Stored finished, not queued: no job exists that could still call the platform.
		expect(await h.receiver.event(String(event.id))).toMatchObject({status: 'ignored', attempts: 0, steps: []});
		expect(h.receiver.counters().processing).toBe(0);
		expect(h.platform.requests.length).toBe(requestsBefore);
		expect(h.receiver.counters().failed).toBe(failedBefore + 1);
	});
});

describe('the failure path', () => {
	let h: Harness | undefined;
	let model: Awaited<ReturnType<typeof startModel>> | undefined;

	afterEach(async () => {
		await h?.close();
		await model?.close();
		h = undefined;
		model = undefined;
	});

	it('completion fails: no log is left open (log 1 COMPLETED, log 2 FAILED) and the apology is written', async () => {
		model = await startModel({status: 500});
		h = await harness({llmUrl: model.url});
		const chat = await h.user.createChat({title: 'Broken model', assistantId: h.platform.assistantId});
		const {assistantMessageId} = await ask(h, chat.id, 'Will this work?');
		const message = await answered(h, chat.id);
		expect(message.text).toBe(apologyText);
		expect(apologyText).toMatch(/try again/i);
		expect(message.stoppedStreamingAt).toEqual(expect.any(String) as unknown);
		const logs = h.platform.messageLogs(assistantMessageId);
		expect(logs.map(log => [log.order, log.status])).toEqual([[1, 'COMPLETED'], [2, 'FAILED']]);
		expect(logs.some(log => log.status === 'RUNNING')).toBe(false);
		const failed = defined(stagesOf(h.events, chat.id).at(-1), 'the failure');
		expect(failed).toMatchObject({stage: 'failed', cleanup: {logsFailed: 1, apologyWritten: true, errors: []}});
		expect(failed.reason).toMatch(/chat\/completions failed with HTTP 502/);
		expect(h.receiver.counters()).toMatchObject({failed: 1, answered: 0, processing: 0});
	});

	it('sets every open log FAILED when the failure comes while both could be open (search fails)', async () => {
		h = await harness();
		const chat = await h.user.createChat({title: 'Empty question', assistantId: h.platform.assistantId});
		// A chosen event with an empty user text: the platform refuses the search (400), a final error.
		const {assistantMessageId} = await ask(h, chat.id, 'placeholder');
		await answered(h, chat.id);
		const event = chosenEvent({chatId: chat.id, text: '', assistantMessageId, userId: h.platform.userId, companyId: h.platform.companyId});
		await sendSigned(`${defined(h.receiver.url)}/webhook`, event, h.platform.endpointSecret);
		await waitFor(() => stagesOf(defined(h).events, chat.id).filter(stage => stage.stage === 'failed').length, {until: count => count === 1, what: 'the failure'});
		const logs = h.platform.messageLogs(assistantMessageId);
		expect(logs.slice(2).map(log => [log.order, log.status, log.text])).toEqual([[1, 'FAILED', 'Searching the knowledge base…']]);
		expect(h.platform.message(assistantMessageId)).toMatchObject({text: apologyText});
	});
});

describe('bounded queue and drain', () => {
	let h: Harness | undefined;
	let model: Awaited<ReturnType<typeof startModel>> | undefined;

	afterEach(async () => {
		await h?.close();
		await model?.close();
		h = undefined;
		model = undefined;
	});

	it('acknowledges a chosen event without waiting for its processing, and runs at most --concurrency jobs', async () => {
		model = await startModel({delayMs: 400});
		const current = await harness({llmUrl: model.url, concurrency: 2});
		h = current;
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
		model = await startModel({gate});
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
			await waitFor(() => model?.calls, {until: calls => calls === 1, what: 'the first completion'});
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
		model = await startModel({delayMs: 300});
		h = await harness({llmUrl: model.url});
		const chat = await h.user.createChat({title: 'Drain', assistantId: h.platform.assistantId});
		const {assistantMessageId} = await ask(h, chat.id, 'Is the lamp lit?');
		await waitFor(() => model?.calls, {until: calls => calls === 1, what: 'the completion call'});
		const result = await h.receiver.close(10_000);
		expect(result.cutOff).toBe(0);
		expect(h.platform.message(assistantMessageId)).toMatchObject({text: 'An answer from the test model.'});
		expect(h.events.at(-1)).toMatchObject({type: 'stopped', cutOff: 0, counters: {answered: 1}});
	});

	it('cuts off jobs still open at the drain deadline: open logs FAILED, apology written, none left RUNNING', async () => {
		model = await startModel({delayMs: 5000});
		h = await harness({llmUrl: model.url, concurrency: 1});
		const first = await h.user.createChat({title: 'Slow one', assistantId: h.platform.assistantId});
		const second = await h.user.createChat({title: 'Queued one', assistantId: h.platform.assistantId});
		const running = await ask(h, first.id, 'Is the lamp lit?');
		const queued = await ask(h, second.id, 'Is the lamp lit?');
		await waitFor(() => model?.calls, {until: calls => calls === 1, what: 'the completion call'});
		await waitFor(() => h?.events.filter(event => event.type === 'accepted' && event.chatId === second.id && event.handling === 'queued').length, {until: count => count === 1, what: 'the second job queued'});
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

describe('buildContext', () => {
	it('cuts each text to 500 characters and joins with a line ---', () => {
		const long = 'x'.repeat(700);
		expect(buildContext([{text: long}, {text: 'short'}])).toEqual({context: `${'x'.repeat(500)}\n---\nshort`, documents: 2});
	});

	it('cuts characters, not UTF-16 units', () => {
		const emoji = '🙂'.repeat(600);
		const {context} = buildContext([{text: emoji}]);
		expect(Array.from(context)).toHaveLength(500);
		expect(context).toBe('🙂'.repeat(500));
	});

	it('uses the string form of items without text', () => {
		expect(buildContext([{title: 'No text', id: 1}, 'plain', 42]).context).toBe('{"title":"No text","id":1}\n---\nplain\n---\n42');
	});

	it('falls back to the fixed sentence when the results are empty or absent', () => {
		for (const results of [[], null, undefined, {}]) {
			expect(buildContext(results)).toEqual({context: noResultsContext, documents: 0});
		}
	});
});
