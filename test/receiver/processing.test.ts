import {mkdtemp, rm, stat, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {RequestRecord} from '../../source/local-platform/index.js';
import {noResultsContext} from '../../source/receiver/answer/answer-text.js';
import {defined} from '../support/defined.js';
import {waitFor} from '../support/wait.js';
import {chosenEvent, sendSigned} from './helpers.js';
import {answered, ask, harness, stagesOf, type Harness} from './processing-support.js';

/** Paragraphs longer than 500 characters, so the context cut shows. */
const lighthouse = [
	`The harbour lighthouse keeper ${'polishes the great lamp every evening and records the weather, the passing ships and the state of the tide in a leather log book that has been kept since the tower was first lit, '.repeat(4)}and that is the end of the first paragraph.`,
	'',
	`The harbour lighthouse lamp ${'turns once every twelve seconds and its beam reaches twenty-two nautical miles across the bay on a clear night, guiding fishing boats past the rocks at the harbour mouth, '.repeat(4)}which ends the second paragraph.`,
].join('\n');

const receiverPaths = (request: RequestRecord) => request.method !== 'GET'
	&& (request.path === '/message-log' || request.path.startsWith('/message-log/') || request.path === '/search/search' || request.path === '/openai/chat/completions' || request.path.startsWith('/messages/'));

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
