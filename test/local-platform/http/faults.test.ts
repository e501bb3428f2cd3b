import {describe, expect, it} from 'vitest';
import {apiOperations, type LocalPlatform} from '../../../source/local-platform/index.js';
import {startPlatform} from '../../support/platform.js';
import {waitFor} from '../../support/wait.js';
import {authHeaders} from '../helpers.js';

async function call(platform: LocalPlatform, method: string, path: string, body?: unknown): Promise<{status: number; text: string; retryAfter: string | null}> {
	const response = await fetch(`${platform.baseUrl}${path}`, {method, headers: authHeaders(platform), ...(body === undefined ? {} : {body: JSON.stringify(body)})});
	return {status: response.status, text: await response.text(), retryAfter: response.headers.get('retry-after')};
}

async function withPlatform(run: (platform: LocalPlatform) => void | Promise<void>, faults: Parameters<typeof startPlatform>[0] = {}): Promise<void> {
	const platform = (await startPlatform(faults)).platform;
	try {
		await run(platform);
	} finally {
		await platform.close();
	}
}

async function chatWithAssistantMessage(platform: LocalPlatform): Promise<{chatId: string; assistantMessageId: string}> {
	const chat = JSON.parse((await call(platform, 'POST', '/space/chat', {title: 'Faults', assistantId: platform.assistantId})).text) as {id: string};
	await call(platform, 'POST', '/space/message', {assistantId: platform.assistantId, chatId: chat.id, text: 'Anything?'});
	const list = JSON.parse((await call(platform, 'GET', `/messages?chatId=${chat.id}`)).text) as {data: Array<{id: string; role: string}>};
	const assistant = list.data.find(message => message.role === 'ASSISTANT');
	if (assistant === undefined) {
		throw new Error('no assistant message');
	}

	return {chatId: chat.id, assistantMessageId: assistant.id};
}

describe('operation faults', () => {
	it('slow: the operation is carried out at once, and answered slowMs later', async () => {
		await withPlatform(async platform => {
			const {assistantMessageId} = await chatWithAssistantMessage(platform);
			const logsBefore = platform.messageLogs(assistantMessageId).length;
			platform.setFaults({slowMs: 60_000, rules: [{operation: 'createMessageLog', kind: 'slow', times: 1}]});
			const controller = new AbortController();
			const answered = fetch(`${platform.baseUrl}/message-log`, {method: 'POST', headers: authHeaders(platform), body: JSON.stringify({messageId: assistantMessageId, text: 'Working', status: 'RUNNING', order: 9}), signal: controller.signal}).catch((error: unknown) => error);
			// The log exists while its create is still unanswered.
			await waitFor(() => platform.messageLogs(assistantMessageId).length, {until: count => count === logsBefore + 1, what: 'the log made'});
			expect(platform.requests.at(-1)).toMatchObject({path: '/message-log', status: 0, fault: 'slow'});
			controller.abort();
			await answered;
			platform.setFaults({slowMs: 1});
			platform.setFaults({rules: [{operation: 'createMessageLog', kind: 'slow', times: 1}]});
			expect((await call(platform, 'POST', '/message-log', {messageId: assistantMessageId, text: 'Again', status: 'RUNNING', order: 10})).status).toBe(201);
		});
	});

	it('perform-502: the operation is carried out, then 502 is answered (only the first time with :1)', async () => {
		await withPlatform(async platform => {
			const {assistantMessageId} = await chatWithAssistantMessage(platform);
			const logsBefore = platform.messageLogs(assistantMessageId).length;
			platform.setFaults({rules: [{operation: 'createMessageLog', kind: 'perform-502', times: 1}]});
			const body = {messageId: assistantMessageId, text: 'Working', status: 'RUNNING', order: 9};
			const first = await call(platform, 'POST', '/message-log', body);
			expect(first.status).toBe(502);
			expect(JSON.parse(first.text)).toMatchObject({error: {code: 'BAD_GATEWAY'}});
			// The log exists although the answer was 502: a blind retry makes a second one.
			expect(platform.messageLogs(assistantMessageId).filter(log => log.order === 9)).toHaveLength(1);
			expect(platform.messageLogs(assistantMessageId)).toHaveLength(logsBefore + 1);
			expect(platform.requests.at(-1)).toMatchObject({path: '/message-log', status: 502, fault: 'perform-502'});

			const second = await call(platform, 'POST', '/message-log', body);
			expect(second.status).toBe(201);
			expect(platform.messageLogs(assistantMessageId).filter(log => log.order === 9)).toHaveLength(2);
		});
	});

	it('empty-200: the operation is carried out, then 200 is answered with the body null', async () => {
		await withPlatform(async platform => {
			const chat = JSON.parse((await call(platform, 'POST', '/space/chat', {title: 'Empty', assistantId: platform.assistantId})).text) as {id: string};
			const empty = await call(platform, 'POST', '/space/message', {assistantId: platform.assistantId, chatId: chat.id, text: 'Stored anyway?'});
			expect(empty).toMatchObject({status: 200, text: 'null'});
			expect(platform.requests.at(-1)).toMatchObject({path: '/space/message', status: 200, fault: 'empty-200'});
			const list = JSON.parse((await call(platform, 'GET', `/messages?chatId=${chat.id}`)).text) as {data: Array<{role: string; text: string | null}>};
			expect(list.data[0]).toMatchObject({role: 'USER', text: 'Stored anyway?'});

			// Every call, while the rule is in force; other operations are untouched.
			expect((await call(platform, 'POST', '/space/message', {assistantId: platform.assistantId, chatId: chat.id, text: 'Again'})).text).toBe('null');
			expect((await call(platform, 'GET', `/space/${platform.assistantId}`)).status).toBe(200);
		}, {faults: [{operation: 'createSpaceMessage', kind: 'empty-200'}]});
	});

	it('a 500 rule refuses before anything is processed, without Retry-After, while it is in force', async () => {
		await withPlatform(async platform => {
			const refused = await call(platform, 'POST', '/space/chat', {title: 'Refused', assistantId: platform.assistantId});
			expect(refused).toMatchObject({status: 500, retryAfter: null});
			expect(JSON.parse(refused.text)).toMatchObject({error: {code: 'INTERNAL_SERVER_ERROR'}});
			expect(platform.requests.at(-1)).toMatchObject({fault: 500});
			platform.setFaults({rules: []});
			expect((await call(platform, 'POST', '/space/chat', {title: 'Made', assistantId: platform.assistantId})).status).toBe(201);
			expect(platform.requests.filter(request => request.path === '/space/chat' && request.status === 201)).toHaveLength(1);
		}, {faults: [{operation: '*', kind: '500'}]});
	});

	it('429 and 503 rules refuse before anything is processed, with Retry-After; * matches every operation', async () => {
		await withPlatform(async platform => {
			const refused = await call(platform, 'POST', '/space/chat', {title: 'Refused', assistantId: platform.assistantId});
			expect(refused).toMatchObject({status: 503, retryAfter: '0'});
			expect(platform.requests.at(-1)).toMatchObject({fault: 503});
			const next = await call(platform, 'GET', `/space/${platform.assistantId}`);
			expect(next).toMatchObject({status: 429, retryAfter: '0'});
			// Both rules are used up; the chat of the refused call was never made.
			const created = await call(platform, 'POST', '/space/chat', {title: 'Made', assistantId: platform.assistantId});
			expect(created.status).toBe(201);
			expect(platform.requests.filter(request => request.path === '/space/chat' && request.status === 201)).toHaveLength(1);
		}, {faultRetryAfterSeconds: 0, faults: [{operation: 'createChat', kind: '503', times: 1}, {operation: '*', kind: '429', times: 1}]});
	});

	it('names every operation the routes serve', async () => {
		await withPlatform(platform => {
			expect([...platform.operations].sort()).toEqual([...apiOperations].sort());
		});
	});
});
