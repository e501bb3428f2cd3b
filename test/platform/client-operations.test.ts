import {describe, expect, it} from 'vitest';
import type {PlatformClient} from '../../source/platform/client.js';
import {clientSuiteFixture} from './client-support.js';
import {validAnswers} from './answers.js';

const fixture = clientSuiteFixture();
const {client} = fixture;

describe('operations: method, path, headers and body', () => {
	// `answer` is a valid answer of the operation (the client decodes every answer).
	const cases: Array<{name: string; call: (c: PlatformClient) => Promise<unknown>; method: string; path: string; body?: unknown; answer: unknown}> = [
		// The contract names no body for the rotation: none is sent, but its Content-Type is.
		{name: 'rotate key', call: async c => c.rotateKey(), method: 'POST', path: '/v2/keys/rotate', answer: validAnswers.rotateKey},
		{name: 'create chat', call: async c => c.createChat({title: 'T', assistantId: 'assistant_1'}), method: 'POST', path: '/space/chat', body: {title: 'T', assistantId: 'assistant_1'}, answer: validAnswers.createChat},
		{name: 'get space', call: async c => c.getSpace('assistant_1'), method: 'GET', path: '/space/assistant_1', answer: validAnswers.getSpace},
		{
			name: 'create space message',
			call: async c => c.createSpaceMessage({assistantId: 'assistant_1', chatId: 'chat_1', text: 'Hello'}),
			method: 'POST',
			path: '/space/message',
			body: {toolChoices: [], skillChoices: [], assistantId: 'assistant_1', chatId: 'chat_1', text: 'Hello'},
			answer: validAnswers.createSpaceMessage,
		},
		{name: 'get latest message', call: async c => c.getLatestMessage('chat_1'), method: 'GET', path: '/space/chat_1/messages/latest', answer: validAnswers.getLatestMessage},
		{name: 'get chat messages', call: async c => c.getChatMessages('chat_1'), method: 'GET', path: '/space/chat/chat_1/messages', answer: validAnswers.getChatMessages},
		{
			name: 'content upsert',
			call: async c => c.upsertContent({input: {key: 'a.txt', title: 'a.txt', mimeType: 'text/plain'}, chatId: 'chat_1'}),
			method: 'POST',
			path: '/content/upsert',
			body: {input: {key: 'a.txt', title: 'a.txt', mimeType: 'text/plain'}, chatId: 'chat_1'},
			answer: validAnswers.createContent,
		},
		{
			name: 'content upsert (finalize)',
			call: async c => c.finalizeContent({input: {key: 'a.txt', title: 'a.txt', mimeType: 'text/plain', byteSize: 12}, chatId: 'chat_1', fileUrl: 'http://blob/read'}),
			method: 'POST',
			path: '/content/upsert',
			body: {input: {key: 'a.txt', title: 'a.txt', mimeType: 'text/plain', byteSize: 12}, chatId: 'chat_1', fileUrl: 'http://blob/read'},
			answer: validAnswers.finalizeContent,
		},
		{
			name: 'content search',
			call: async c => c.searchContent({where: {id: {equals: 'cont_1'}}, chatId: 'chat_1', includeFailedContent: true}),
			method: 'POST',
			path: '/content/search',
			body: {where: {id: {equals: 'cont_1'}}, chatId: 'chat_1', includeFailedContent: true},
			answer: validAnswers.searchContent,
		},
		{
			name: 'search',
			call: async c => c.search({searchString: 'refunds', searchType: 'COMBINED', limit: 3, chatId: 'chat_1'}),
			method: 'POST',
			path: '/search/search',
			body: {searchString: 'refunds', searchType: 'COMBINED', limit: 3, chatId: 'chat_1'},
			answer: validAnswers.search,
		},
		{
			name: 'chat completion',
			call: async c => c.chatCompletion({model: 'AZURE_GPT_4o_2024_1120', messages: [{role: 'system', content: 'S'}, {role: 'user', content: 'U'}], options: {temperature: 0.3}}),
			method: 'POST',
			path: '/openai/chat/completions',
			body: {model: 'AZURE_GPT_4o_2024_1120', messages: [{role: 'system', content: 'S'}, {role: 'user', content: 'U'}], options: {temperature: 0.3}},
			answer: validAnswers.chatCompletion,
		},
		{
			name: 'create message log',
			call: async c => c.createMessageLog({messageId: 'msg_1', text: 'Searching', status: 'RUNNING', order: 1}),
			method: 'POST',
			path: '/message-log',
			body: {messageId: 'msg_1', text: 'Searching', status: 'RUNNING', order: 1},
			answer: validAnswers.createMessageLog,
		},
		{
			name: 'update message log',
			call: async c => c.updateMessageLog('msglog_1', {status: 'COMPLETED', text: 'Found 2 documents'}),
			method: 'PATCH',
			path: '/message-log/msglog_1',
			body: {status: 'COMPLETED', text: 'Found 2 documents'},
			answer: validAnswers.updateMessageLog,
		},
		{
			name: 'modify message',
			call: async c => c.modifyMessage('msg_2', {chatId: 'chat_1', text: 'Answer', stoppedStreamingAt: '2026-01-01T00:00:00.000Z', completedAt: '2026-01-01T00:00:00.000Z'}),
			method: 'PATCH',
			path: '/messages/msg_2',
			body: {chatId: 'chat_1', text: 'Answer', stoppedStreamingAt: '2026-01-01T00:00:00.000Z', completedAt: '2026-01-01T00:00:00.000Z'},
			answer: validAnswers.modifyMessage,
		},
	];

	cases.push(
		{name: 'retrieve message', call: async c => c.getMessage('msg_1', 'chat_1'), method: 'GET', path: '/messages/msg_1?chatId=chat_1', answer: validAnswers.getMessage},
		{name: 'list messages', call: async c => c.listMessages('chat_1'), method: 'GET', path: '/messages?chatId=chat_1', answer: validAnswers.listMessages},
		{name: 'delete chat', call: async c => c.deleteChat('chat_1'), method: 'DELETE', path: '/space/chat/chat_1', answer: validAnswers.deleteChat},
		{name: 'list models', call: async c => c.listModels(), method: 'GET', path: '/openai/models', answer: validAnswers.listModels},
	);

	/** Headers the HTTP layer adds whatever the call (not part of the platform's contract). */
	const transportHeaders = new Set(['host', 'connection', 'content-length', 'transfer-encoding']);

	for (const testCase of cases) {
		it(`${testCase.name}: the exact headers of the wire contract`, async () => {
			fixture.server.enqueue({status: 200, body: testCase.answer});
			await testCase.call(client());
			const [request] = fixture.server.requests;
			const sent = Object.fromEntries(Object.entries(request?.headers ?? {}).filter(([name]) => !transportHeaders.has(name)));
			// Content-Type on every call with a JSON body, and on POST /v2/keys/rotate, which has none.
			const json = testCase.body !== undefined || testCase.path === '/v2/keys/rotate';
			expect(sent).toEqual({
				authorization: 'Bearer sk_test_key_0001',
				'x-app-id': 'app_123',
				'x-user-id': 'user_1',
				'x-company-id': 'company_1',
				'x-api-version': '2023-12-06',
				'user-agent': expect.stringMatching(/^platform-tui\/\d+\.\d+\.\d+/) as unknown,
				accept: 'application/json',
				...(json ? {'content-type': 'application/json'} : {}),
			});
		});

		it(testCase.name, async () => {
			fixture.server.enqueue({status: 200, body: testCase.answer});
			await testCase.call(client());
			expect(fixture.server.requests).toHaveLength(1);
			const [request] = fixture.server.requests;
			expect(request?.method).toBe(testCase.method);
			expect(request?.path).toBe(testCase.path);
			expect(request?.headers.authorization).toBe('Bearer sk_test_key_0001');
			expect(request?.headers['x-app-id']).toBe('app_123');
			expect(request?.headers['x-user-id']).toBe('user_1');
			expect(request?.headers['x-company-id']).toBe('company_1');
			expect(request?.headers['x-api-version']).toBe('2023-12-06');
			expect(request?.headers['user-agent']).toMatch(/^platform-tui\/\d+\.\d+\.\d+/);
			if (testCase.body === undefined) {
				expect(request?.body).toBe('');
			} else {
				expect(request?.headers['content-type']).toBe('application/json');
				expect(JSON.parse(request?.body ?? '')).toEqual(testCase.body);
			}
		});
	}

	it('returns the parsed JSON answer', async () => {
		fixture.server.enqueue({status: 200, body: {id: 'chat_9', title: 'T', createdAt: '2026-01-01T00:00:00Z'}});
		await expect(client().createChat({title: 'T', assistantId: 'a'})).resolves.toEqual({id: 'chat_9', title: 'T', createdAt: '2026-01-01T00:00:00Z'});
	});

	it('sends the user and company named by the call instead of the defaults', async () => {
		fixture.server.enqueue({status: 200, body: validAnswers.search});
		await client().search({searchString: 'x', searchType: 'COMBINED', limit: 3}, {userId: 'user_event', companyId: 'company_event'});
		expect(fixture.server.requests[0]?.headers['x-user-id']).toBe('user_event');
		expect(fixture.server.requests[0]?.headers['x-company-id']).toBe('company_event');
	});
});
