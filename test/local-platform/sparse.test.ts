/**
 * `--answers sparse` over HTTP: each operation's answer carries exactly the fields the contract
 * promises (whatever else the record holds), and `full` keeps the whole record.
 */
import {request} from 'undici';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {startPlatform} from '../support/platform.js';
import {authHeaders} from './helpers.js';

async function call(platform: LocalPlatform, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<unknown> {
	const answer = await request(`${platform.baseUrl}${path}`, {method, headers: {...authHeaders(platform), ...(body === undefined ? {} : {'content-type': 'application/json'})}, body: body === undefined ? undefined : JSON.stringify(body)});
	expect(answer.statusCode).toBeLessThan(300);
	return answer.body.json();
}

const keysOf = (value: unknown) => Object.keys(value as object).toSorted();

describe('the local platform with sparse answers', () => {
	let platform: LocalPlatform;

	beforeAll(async () => {
		platform = (await startPlatform({answers: 'sparse'})).platform;
	});

	afterAll(async () => {
		await platform.close();
	});

	it('answers every operation with only the promised fields', async () => {
		const space = await call(platform, 'GET', `/space/${platform.assistantId}`) as {modules: unknown[]};
		expect(keysOf(space)).toEqual(['chatUpload', 'languageModel', 'modules', 'name']);
		for (const module of space.modules) {
			expect(keysOf(module)).toEqual(['name']);
		}

		const chat = await call(platform, 'POST', '/space/chat', {title: 'Sparse', assistantId: platform.assistantId}) as {id: string};
		expect(keysOf(chat)).toEqual(['id']);
		const sent = await call(platform, 'POST', '/space/message', {assistantId: platform.assistantId, chatId: chat.id, text: 'Hi', toolChoices: [], skillChoices: []});
		expect(keysOf(sent).every(key => ['id', 'role', 'text', 'stoppedStreamingAt'].includes(key))).toBe(true);
		expect(keysOf(sent)).toContain('id');
		const latest = await call(platform, 'GET', `/space/${chat.id}/messages/latest`) as {id: string};
		expect(keysOf(latest).every(key => ['id', 'role', 'text', 'stoppedStreamingAt'].includes(key))).toBe(true);
		const history = await call(platform, 'GET', `/space/chat/${chat.id}/messages`) as {messages: unknown[]};
		expect(keysOf(history)).toEqual(['messages']);
		for (const message of history.messages) {
			expect(keysOf(message).every(key => ['role', 'text'].includes(key))).toBe(true);
		}

		const retrieved = await call(platform, 'GET', `/messages/${latest.id}?chatId=${chat.id}`);
		expect(keysOf(retrieved).every(key => ['id', 'role', 'text', 'stoppedStreamingAt'].includes(key))).toBe(true);
		const list = await call(platform, 'GET', `/messages?chatId=${chat.id}`);
		expect(keysOf(list)).toEqual(['data']);
		const log = await call(platform, 'POST', '/message-log', {messageId: latest.id, text: 'Working', status: 'RUNNING', order: 1}) as {id: string};
		expect(keysOf(log)).toEqual(['id']);
		expect(keysOf(await call(platform, 'PATCH', `/message-log/${log.id}`, {status: 'COMPLETED'}))).toEqual(['id']);
		expect(keysOf(await call(platform, 'PATCH', `/messages/${latest.id}`, {chatId: chat.id, text: 'Done'}))).toEqual(['id']);
		const content = await call(platform, 'POST', '/content/upsert', {input: {key: 'a.txt', title: 'a.txt', mimeType: 'text/plain'}, chatId: chat.id}) as {id: string};
		expect(keysOf(content)).toEqual(['id', 'writeUrl']);
		const found = await call(platform, 'POST', '/content/search', {where: {id: {equals: content.id}}, chatId: chat.id, includeFailedContent: true}) as unknown[];
		expect(found.map(keysOf)).toEqual([['id', 'ingestionState']]);
		const completion = await call(platform, 'POST', '/openai/chat/completions', {model: 'm', messages: [{role: 'user', content: 'Hi'}], options: {temperature: 0.3}}) as {choices: Array<{message: unknown}>};
		expect(keysOf(completion)).toEqual(['choices']);
		expect(completion.choices.map(keysOf)).toEqual([['message']]);
		expect(keysOf(completion.choices[0]?.message)).toEqual(['content']);
		expect(keysOf(await call(platform, 'DELETE', `/space/chat/${chat.id}`))).toEqual(['id']);
		const rotation = await call(platform, 'POST', '/v2/keys/rotate');
		expect(keysOf(rotation)).toEqual(['new_key', 'old_key_expires_at']);
	});

	it('full answers (the default) keep the whole records', async () => {
		const full = (await startPlatform()).platform;
		try {
			const chat = await call(full, 'POST', '/space/chat', {title: 'Full', assistantId: full.assistantId});
			expect(keysOf(chat)).toEqual(expect.arrayContaining(['createdAt', 'id', 'title']));
		} finally {
			await full.close();
		}
	});
});
