import {createServer} from 'node:http';
import type {AddressInfo} from 'node:net';
import {describe, expect, it} from 'vitest';
import {PlatformClient} from '../../source/platform/client.js';
import {PlatformResponseError} from '../../source/platform/errors.js';
import {clientFixture} from './fixture.js';
import {validAnswers} from './answers.js';

const fixture = clientFixture();
const client = () => fixture.client();

async function failure(promise: Promise<unknown>): Promise<PlatformResponseError> {
	const error = await promise.then(() => undefined, (error_: unknown) => error_);
	expect(error).toBeInstanceOf(PlatformResponseError);
	return error as PlatformResponseError;
}

const createChat = async () => client().createChat({title: 'T', assistantId: 'assistant_1'});


describe('every answer is decoded', () => {
	it('a chat without id is a typed error naming the operation, the field and the request id', async () => {
		fixture.server.enqueue({status: 200, body: {title: 'T', createdAt: '2026-01-01T00:00:00Z'}, headers: {'request-id': 'req_noid'}});
		const error = await failure(createChat());
		expect(error.code).toBe('platform-malformed-response');
		expect(error.data).toMatchObject({operation: 'createChat', field: 'id', requestId: 'req_noid', status: 200, method: 'POST', path: '/space/chat', attempts: 1});
		expect(error.message).toBe('POST /space/chat returned an unexpected answer: id is missing (request id req_noid)');
		// A malformed answer is final: the platform did answer, so nothing is resent.
		expect(fixture.server.requests).toHaveLength(1);
	});

	it('a JSON null and an empty 200 body are typed errors, never a property read of null', async () => {
		fixture.server.enqueue({status: 200, body: null, headers: {'request-id': 'req_null'}}, {status: 200});
		const nullBody = await failure(createChat());
		expect(nullBody.data).toMatchObject({operation: 'createChat', field: '(body)', requestId: 'req_null', detail: 'the body is null, not an object'});
		const empty = await failure(client().getChatMessages('chat_1'));
		expect(empty.data).toMatchObject({operation: 'getChatMessages', field: '(body)', detail: 'the body is empty'});
	});

	it('search may answer with no list (spec §2.4): null and an empty body read as null', async () => {
		fixture.server.enqueue({status: 200, body: null}, {status: 200});
		await expect(client().search({searchString: 'x', searchType: 'COMBINED', limit: 3})).resolves.toBeNull();
		await expect(client().search({searchString: 'x', searchType: 'COMBINED', limit: 3})).resolves.toBeNull();
	});

	it('a mistyped field names the field, what was found and what was expected', async () => {
		fixture.server.enqueue(
			{status: 200, body: {id: 42, title: 'T'}},
			{status: 200, body: {choices: [{index: 0, message: {role: 'assistant', content: null}}]}, headers: {'request-id': 'req_llm'}},
			{status: 200, body: {choices: []}},
			{status: 200, body: {...validAnswers.createMessageLog, id: 7}},
			{status: 200, body: {id: 'cont_1'}},
		);
		expect((await failure(createChat())).detail).toBe('id is a number, not a string');
		const completion = await failure(client().chatCompletion({model: 'm', messages: []}));
		expect(completion.data).toMatchObject({operation: 'chatCompletion', field: 'choices[0].message.content', requestId: 'req_llm'});
		expect(completion.detail).toBe('choices[0].message.content is null, not a string');
		expect((await failure(client().chatCompletion({model: 'm', messages: []}))).detail).toBe('choices[0] is missing');
		expect((await failure(client().createMessageLog({messageId: 'msg_1', text: 't', status: 'RUNNING', order: 1}))).detail)
			.toBe('id is a number, not a string');
		const search = client().searchContent({where: {id: {equals: 'cont_1'}}});
		expect((await failure(search)).detail).toBe('the body is an object, not a list');
	});

	it('an empty id is as unusable as a missing one', async () => {
		fixture.server.enqueue({status: 200, body: {id: ''}});
		expect((await failure(createChat())).detail).toBe('id is an empty string');
	});

	it('a body that is not JSON is a typed error', async () => {
		const raw = createServer((request, response) => {
			request.resume();
			response.writeHead(200, {'content-type': 'text/html', 'request-id': 'req_html'});
			response.end('<html>gateway</html>');
		});
		await new Promise<void>(resolve => {
			raw.listen(0, '127.0.0.1', resolve);
		});
		const htmlClient = new PlatformClient({baseUrl: `http://127.0.0.1:${(raw.address() as AddressInfo).port}`, apiKey: 'k', appId: 'a'});
		try {
			const error = await failure(htmlClient.createChat({title: 'T', assistantId: 'a'}));
			expect(error.data).toMatchObject({operation: 'createChat', field: '(body)', detail: 'the body is not JSON', requestId: 'req_html'});
		} finally {
			await htmlClient.close();
			raw.closeAllConnections();
			await new Promise(resolve => {
				raw.close(resolve);
			});
		}
	});

	it('accepts and keeps extra fields, and optional fields may be absent', async () => {
		fixture.server.enqueue(
			{status: 200, body: {id: 'chat_1', title: 'T', createdAt: '2026-01-01T00:00:00Z', color: 'blue', nested: {a: 1}}},
			{status: 200, body: {...validAnswers.getSpace, extra: [1, 2]}},
			{status: 200, body: {name: 'Bare space'}},
			{status: 200, body: {id: 'msg_2', chatId: 'chat_1', debugInfo: {chosenModule: 'Docs'}}},
			{status: 200, body: [{id: 'cont_1', ingestionState: 'QUEUED', score: 0.5}]},
		);
		await expect(createChat()).resolves.toEqual({id: 'chat_1', title: 'T', createdAt: '2026-01-01T00:00:00Z', color: 'blue', nested: {a: 1}});
		await expect(client().getSpace('assistant_1')).resolves.toMatchObject({extra: [1, 2], modules: [{name: 'Docs'}]});
		await expect(client().getSpace('assistant_1')).resolves.toEqual({name: 'Bare space'});
		await expect(client().getMessage('msg_2', 'chat_1')).resolves.toEqual({id: 'msg_2', chatId: 'chat_1', debugInfo: {chosenModule: 'Docs'}});
		await expect(client().searchContent({where: {id: {equals: 'cont_1'}}})).resolves.toEqual([{id: 'cont_1', ingestionState: 'QUEUED', score: 0.5}]);
	});

	it('decodes each operation’s documented answer', async () => {
		const calls: Array<[keyof typeof validAnswers, (c: PlatformClient) => Promise<unknown>]> = [
			['getMessage', async c => c.getMessage('msg_1', 'chat_1')],
			['listMessages', async c => c.listMessages('chat_1')],
			['deleteChat', async c => c.deleteChat('chat_1')],
			['listModels', async c => c.listModels()],
			['deleteContent', async c => c.deleteContent('cont_1', 'chat_1')],
		];
		for (const [operation, call] of calls) {
			fixture.server.enqueue({status: 200, body: validAnswers[operation]});
			await expect(call(client())).resolves.toEqual(validAnswers[operation]);
		}

		expect(fixture.server.requests.map(request => `${request.method} ${request.path}`)).toEqual([
			'GET /messages/msg_1?chatId=chat_1',
			'GET /messages?chatId=chat_1',
			'DELETE /space/chat/chat_1',
			'GET /openai/models',
			'DELETE /content/cont_1?chatId=chat_1',
		]);
	});
});
