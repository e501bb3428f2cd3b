import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {LocalPlatform} from '../../../source/local-platform/index.js';
import type {PlatformClient} from '../../../source/platform/client.js';
import type {ChatCompletionRequest} from '../../../source/platform/types.js';
import {clientFor, startPlatform} from '../../support/platform.js';
import {sendJson, startRecordingServer} from '../../support/recording-server.js';
import {waitFor} from '../../support/wait.js';
import {defined} from '../../support/defined.js';
import {authHeaders, tempDir} from '../helpers.js';

const context = [
	'Answer the question using only the context below.',
	'',
	'Context:',
	'The lighthouse was built in 1871 by the harbour board.',
	'---',
	'Its lamp is visible from 22 nautical miles away. The keeper lives in a white cottage.',
	'---',
	'Ferries to the island leave every hour from pier seven.',
].join('\n');

type CompletionBody = {
	choices: Array<{index: number; message: {role: string; content: string}; finish_reason: string}>;
	localPlatform: {temperature: number | null; ignoredFields: string[]; via: string};
};

describe('chat completion', () => {
	let platform: LocalPlatform;
	let client: PlatformClient;

	beforeAll(async () => {
		platform = (await startPlatform()).platform;
		client = clientFor(platform);
	});

	afterAll(async () => {
		await client.close();
		await platform.close();
	});

	const request = (question: string, options?: ChatCompletionRequest['options']): ChatCompletionRequest => ({
		model: 'AZURE_GPT_4o_2024_1120',
		messages: [{role: 'system', content: context}, {role: 'user', content: question}],
		...(options === undefined ? {} : {options}),
	});

	it('answers extractively from the context in the system message and says it is local', async () => {
		const completion = await client.chatCompletion(request('When was the lighthouse built?', {temperature: 0.3}));
		expect(completion.choices).toHaveLength(1);
		expect(completion.choices[0]).toMatchObject({index: 0, finish_reason: 'stop', message: {role: 'assistant'}});
		expect(defined(completion.choices[0]).message.content).toBe('(local model) The lighthouse was built in 1871 by the harbour board.');

		const ferry = await client.chatCompletion(request('How often do ferries leave for the island?'));
		expect(defined(ferry.choices[0]).message.content).toBe('(local model) Ferries to the island leave every hour from pier seven.');

		const unknown = await client.chatCompletion(request('What is the price of tea in Shanghai?'));
		expect(defined(unknown.choices[0]).message.content).toMatch(/^\(local model\) I could not find an answer/);
	});

	it('honours options.temperature and drops a top-level temperature like the gateway', async () => {
		const post = async (body: unknown) => {
			const response = await fetch(`${platform.baseUrl}/openai/chat/completions`, {method: 'POST', headers: authHeaders(platform), body: JSON.stringify(body)});
			expect(response.status).toBe(200);
			return (await response.json()) as CompletionBody;
		};

		const topLevel = await post({...request('Who lives in the cottage?'), temperature: 0.9});
		expect(topLevel.localPlatform).toEqual({temperature: null, ignoredFields: ['temperature'], via: 'local-model'});
		expect(topLevel.choices[0]?.message.content).toContain('The keeper lives in a white cottage.');
		expect(platform.completions.at(-1)).toMatchObject({temperature: null, ignoredFields: ['temperature']});

		const inOptions = await post({...request('Who lives in the cottage?'), options: {temperature: 0.3}});
		expect(inOptions.localPlatform).toEqual({temperature: 0.3, ignoredFields: [], via: 'local-model'});
		expect(platform.completions.at(-1)).toMatchObject({temperature: 0.3, model: 'AZURE_GPT_4o_2024_1120', source: 'api'});

		const both = await post({...request('Who lives in the cottage?'), temperature: 1.5, options: {temperature: 0.2}});
		expect(both.localPlatform.temperature).toBe(0.2);

		const invalid = await fetch(`${platform.baseUrl}/openai/chat/completions`, {method: 'POST', headers: authHeaders(platform), body: JSON.stringify({...request('x'), options: {temperature: 'hot'}})});
		expect(invalid.status).toBe(400);
		const noMessages = await fetch(`${platform.baseUrl}/openai/chat/completions`, {method: 'POST', headers: authHeaders(platform), body: JSON.stringify({model: 'm', messages: []})});
		expect(noMessages.status).toBe(400);
	});

	it('proxies to an OpenAI-compatible endpoint given as llmUrl', async () => {
		const upstream = await startRecordingServer({handler: (_received, response) => {
			sendJson(response, 200, {id: 'x', choices: [{index: 0, message: {role: 'assistant', content: 'from upstream'}, finish_reason: 'stop'}]});
		}});
		const proxied = (await startPlatform({llmUrl: `${upstream.url}/v1`, llmModel: 'tiny-model'})).platform;
		try {
			const proxiedClient = clientFor(proxied);
			const completion = await proxiedClient.chatCompletion(request('When was the lighthouse built?', {temperature: 0.3}));
			expect(defined(completion.choices[0]).message.content).toBe('from upstream');
			expect(upstream.requests).toHaveLength(1);
			expect(defined(upstream.requests[0]).path).toBe('/v1/chat/completions');
			expect(JSON.parse(defined(upstream.requests[0]).body)).toMatchObject({model: 'tiny-model', temperature: 0.3, stream: false});
			await proxiedClient.close();
		} finally {
			await proxied.close();
			await upstream.close();
		}

		await expect(startPlatform({llmUrl: 'https://api.example.com/v1'})).rejects.toThrow(/loopback/);
	});
});

describe('space chat with the built-in assistant', () => {
	let platform: LocalPlatform;
	let client: PlatformClient;

	beforeAll(async () => {
		platform = (await startPlatform({assistantStepMs: 20})).platform;
		client = clientFor(platform);
	});

	afterAll(async () => {
		await client.close();
		await platform.close();
	});

	it('answers from the chat\'s documents, streaming, and records logs and history', async () => {
		const files = await tempDir();
		try {
			const chat = await client.createChat({title: 'Folder upload session', assistantId: platform.assistantId});
			expect(chat).toMatchObject({title: 'Folder upload session', createdAt: expect.any(String) as unknown});
			expect((await client.getChatMessages(chat.id))).toEqual({messages: [], totalCount: 0});
			const text = 'Opening hours\n\nThe museum opens at nine in the morning. It closes at five in the evening. Entry is free on Sundays.';
			const filePath = await files.file('museum.md', text);
			const content = await client.upsertContent({input: {key: 'museum.md', title: 'museum.md', mimeType: 'text/markdown'}, chatId: chat.id});
			await client.putBlob(defined(content.writeUrl), {filePath, contentType: 'text/markdown'});
			await client.finalizeContent({input: {key: 'museum.md', title: 'museum.md', mimeType: 'text/markdown', byteSize: Buffer.byteLength(text)}, chatId: chat.id, fileUrl: defined(content.readUrl)});
			await waitFor(() => platform.content(content.id)?.ingestionState, {until: state => state === 'FINISHED'});

			const userMessage = await client.createSpaceMessage({assistantId: platform.assistantId, chatId: chat.id, text: 'When does the museum open?'});
			expect(userMessage).toMatchObject({role: 'USER', chatId: chat.id, text: 'When does the museum open?'});
			const texts = new Set<string>();
			const reply = await waitFor(async () => {
				const latest = await client.getLatestMessage(chat.id);
				if (latest.text) {
					texts.add(latest.text);
				}

				return latest;
			}, {until: latest => latest.stoppedStreamingAt !== null});
			expect(reply).toMatchObject({role: 'ASSISTANT', text: '(local model) The museum opens at nine in the morning.'});
			expect(reply.completedAt).toEqual(expect.any(String));
			// Every text seen while streaming was a beginning of the final text.
			for (const seen of texts) {
				expect(defined(reply.text).startsWith(seen)).toBe(true);
			}

			expect(platform.messageLogs(defined(reply.id)).map(log => [log.order, log.status])).toEqual([[1, 'COMPLETED'], [2, 'COMPLETED']]);
			expect(platform.completions.at(-1)).toMatchObject({source: 'assistant', temperature: 0.3});
			const history = await client.getChatMessages(chat.id);
			expect(history.messages.map(message => message.role)).toEqual(['USER', 'ASSISTANT']);
			expect(platform.deliveries).toEqual([]);
		} finally {
			await files.remove();
		}
	});

	it('updates message logs and messages, and refuses bad input', async () => {
		const chat = await client.createChat({title: 'Edits', assistantId: platform.assistantId});
		await client.createSpaceMessage({assistantId: platform.assistantId, chatId: chat.id, text: 'Anything?'});
		const assistant = await client.getLatestMessage(chat.id);
		const assistantId = defined(assistant.id, 'the assistant message id');
		const log = await client.createMessageLog({messageId: assistantId, text: 'Working', status: 'RUNNING', order: 7});
		expect(log).toMatchObject({messageId: assistantId, text: 'Working', status: 'RUNNING', order: 7});
		expect(log.id).toMatch(/^msglog_[a-z\d]{24}$/);
		expect(await client.updateMessageLog(log.id, {status: 'FAILED'})).toMatchObject({id: log.id, text: 'Working', status: 'FAILED'});
		await expect(client.updateMessageLog(log.id, {status: 'DONE' as 'COMPLETED'})).rejects.toMatchObject({status: 400});
		await expect(client.updateMessageLog('msglog_missing', {text: 'x'})).rejects.toMatchObject({status: 404});
		await expect(client.createMessageLog({messageId: 'msg_missing', text: 'x', status: 'RUNNING', order: 1})).rejects.toMatchObject({status: 404});

		const modified = await client.modifyMessage(assistantId, {chatId: chat.id, text: 'Edited answer'});
		expect(modified).toMatchObject({id: assistantId, text: 'Edited answer'});
		await expect(client.modifyMessage(assistantId, {chatId: 'chat_other', text: 'x'})).rejects.toMatchObject({status: 400});
		await expect(client.modifyMessage(assistantId, {chatId: chat.id, text: 'x', stoppedStreamingAt: 'yesterday'})).rejects.toMatchObject({status: 400});
		await expect(client.createSpaceMessage({assistantId: platform.assistantId, chatId: 'chat_missing', text: 'x'})).rejects.toMatchObject({status: 404});
		await expect(client.createChat({title: 'x', assistantId: 'assistant_missing'})).rejects.toMatchObject({status: 404});
		await expect(client.getSpace('assistant_missing')).rejects.toMatchObject({status: 404});
		await expect(client.getLatestMessage('chat_missing')).rejects.toMatchObject({status: 404});
	});

	it('refuses new records with 403 once a store is full', async () => {
		const small = (await startPlatform({limits: {maxChats: 1}})).platform;
		try {
			const smallClient = clientFor(small);
			await smallClient.createChat({title: 'one', assistantId: small.assistantId});
			await expect(smallClient.createChat({title: 'two', assistantId: small.assistantId})).rejects.toMatchObject({status: 403});
			await smallClient.close();
		} finally {
			await small.close();
		}
	});
});
