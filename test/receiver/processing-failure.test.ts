import {describe, expect, it} from 'vitest';
import {apologyText} from '../../source/receiver/answer/answer-text.js';
import {defined} from '../support/defined.js';
import {waitFor} from '../support/wait.js';
import {chosenEvent, sendSigned} from './helpers.js';
import {answered, ask, closedAfterEach, stagesOf} from './processing-support.js';

describe('the failure path', () => {
	const {harness, startModel} = closedAfterEach();

	it('completion fails: no log is left open (log 1 COMPLETED, log 2 FAILED) and the apology is written', async () => {
		const model = await startModel({status: 500});
		const h = await harness({llmUrl: model.url});
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
		const h = await harness();
		const chat = await h.user.createChat({title: 'Empty question', assistantId: h.platform.assistantId});
		// A chosen event with an empty user text: the platform refuses the search (400), a final error.
		const {assistantMessageId} = await ask(h, chat.id, 'placeholder');
		await answered(h, chat.id);
		const event = chosenEvent({chatId: chat.id, text: '', assistantMessageId, userId: h.platform.userId, companyId: h.platform.companyId});
		await sendSigned(`${defined(h.receiver.url)}/webhook`, event, h.platform.endpointSecret);
		await waitFor(() => stagesOf(h.events, chat.id).filter(stage => stage.stage === 'failed').length, {until: count => count === 1, what: 'the failure'});
		const logs = h.platform.messageLogs(assistantMessageId);
		expect(logs.slice(2).map(log => [log.order, log.status, log.text])).toEqual([[1, 'FAILED', 'Searching the knowledge base…']]);
		expect(h.platform.message(assistantMessageId)).toMatchObject({text: apologyText});
	});
});
