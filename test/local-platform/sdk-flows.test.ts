import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {startPlatform} from '../support/platform.js';
import {waitFor} from '../support/wait.js';
import {authHeaders} from './helpers.js';

type WireMessage = {id: string; chatId: string; role: string; text: string | null; stoppedStreamingAt: string | null; debugInfo?: unknown};

/** Calls the platform the way the SDK does: plain HTTP with the credential headers. */
async function call(platform: LocalPlatform, method: string, path: string, body?: unknown): Promise<{status: number; body: unknown}> {
	const response = await fetch(`${platform.baseUrl}${path}`, {method, headers: authHeaders(platform), ...(body === undefined ? {} : {body: JSON.stringify(body)})});
	return {status: response.status, body: await response.json()};
}

describe('the SDK helper flows', () => {
	let platform: LocalPlatform;

	beforeAll(async () => {
		platform = (await startPlatform()).platform;
	});

	afterAll(async () => {
		await platform.close();
	});

	it('chat_against_file: a message without chatId starts a chat; retrieve with chatId; list; delete chat, then 404', async () => {
		const sent = await call(platform, 'POST', '/space/message', {assistantId: platform.assistantId, text: 'When does the museum open?', toolChoices: [], skillChoices: []});
		expect(sent.status).toBe(201);
		const userMessage = sent.body as WireMessage;
		expect(userMessage).toMatchObject({role: 'USER', text: 'When does the museum open?', chatId: expect.stringMatching(/^chat_[a-z\d]{24}$/) as unknown});
		const {chatId} = userMessage;

		// send_message_and_wait_for_completion: read the user message back by id with its chat.
		const retrieved = await call(platform, 'GET', `/messages/${userMessage.id}?chatId=${chatId}`);
		expect(retrieved.status).toBe(200);
		expect(retrieved.body).toMatchObject({id: userMessage.id, chatId, role: 'USER'});
		expect(retrieved.body).toHaveProperty('debugInfo');

		// The built-in assistant answers in the new chat; the list shows both messages.
		const list = await waitFor(async () => (await call(platform, 'GET', `/messages?chatId=${chatId}`)).body as {object: string; data: WireMessage[]}, {until: body => body.data.at(-1)?.stoppedStreamingAt !== null});
		expect(list.object).toBe('list');
		expect(list.data.map(message => message.role)).toEqual(['USER', 'ASSISTANT']);
		const answered = await call(platform, 'GET', `/messages/${userMessage.id}?chatId=${chatId}`);
		expect((answered.body as WireMessage).debugInfo).toMatchObject({chosenModule: 'DocumentSearch', assistantMessageId: list.data[1]?.id});

		// Retrieve needs the chat, and the message must be in it.
		expect((await call(platform, 'GET', `/messages/${userMessage.id}`)).status).toBe(400);
		const other = (await call(platform, 'POST', '/space/chat', {title: 'Other', assistantId: platform.assistantId})).body as {id: string};
		expect((await call(platform, 'GET', `/messages/${userMessage.id}?chatId=${other.id}`)).status).toBe(404);

		const deleted = await call(platform, 'DELETE', `/space/chat/${chatId}`);
		expect(deleted).toEqual({status: 200, body: {id: chatId}});
		for (const path of [`/messages/${userMessage.id}?chatId=${chatId}`, `/messages?chatId=${chatId}`, `/space/chat/${chatId}/messages`, `/space/${chatId}/messages/latest`]) {
			 
			const after = await call(platform, 'GET', path);
			expect(after.status).toBe(404);
			expect(after.body).toMatchObject({error: {code: 'NOT_FOUND'}});
		}

		expect(platform.message(userMessage.id)).toBeUndefined();
		expect((await call(platform, 'DELETE', `/space/chat/${chatId}`)).status).toBe(404);
		expect((await call(platform, 'POST', '/space/message', {assistantId: platform.assistantId, chatId, text: 'Still there?'})).status).toBe(404);
	});

	it('a message without chatId for an unknown assistant is 404 and starts no chat', async () => {
		const before = platform.requests.filter(request => request.path === '/space/message').length;
		const sent = await call(platform, 'POST', '/space/message', {assistantId: 'assistant_missing', text: 'Hello'});
		expect(sent.status).toBe(404);
		expect(platform.requests.filter(request => request.path === '/space/message')).toHaveLength(before + 1);
	});
});
