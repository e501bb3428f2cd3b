import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import type {AnswerPort} from '../../source/receiver/answer/answer-port.js';
import {answerChosenEvent} from '../../source/receiver/answer/answer.js';
import type {ChosenJob} from '../../source/receiver/intake/chosen-event.js';
import {runUpload} from '../../source/workflow/run-upload.js';
import {clientFor, startPlatform} from '../support/platform.js';
import {makeFolder} from '../workflow/helpers.js';

const job: ChosenJob = {eventId: 'evt_1', userId: 'user_1', companyId: 'company_1', chatId: 'chat_1', assistantMessageId: 'msg_1', text: 'Question?'};

/** A port whose search finds `found` documents; it keeps the text each message log ends with. */
function portFinding(found: number): {port: AnswerPort; logTexts: Map<string, string | undefined>} {
	const logTexts = new Map<string, string | undefined>();
	let next = 0;
	const port: AnswerPort = {
		async createMessageLog(body) {
			const id = `log_${++next}`;
			logTexts.set(id, body.text);
			return Promise.resolve({id, messageId: body.messageId, status: body.status, order: body.order, text: body.text, createdAt: '', updatedAt: ''} as never);
		},
		async updateMessageLog(id, body) {
			if (body.text !== undefined) {
				logTexts.set(id, body.text);
			}

			return Promise.resolve({id} as never);
		},
		search: async () => Promise.resolve(Array.from({length: found}, (_, index) => ({id: `doc_${index}`, text: `document ${index}`})) as never),
		chatCompletion: async () => Promise.resolve({choices: [{index: 0, message: {role: 'assistant', content: 'The answer.'}, finish_reason: 'stop'}]} as never),
		modifyMessage: async () => Promise.resolve({}),
		getMessage: async (id, chatId) => Promise.resolve({id, chatId, text: null}),
	};
	return {port, logTexts};
}

describe('the search step\'s message log counts documents with plural rules (issue 10 item 13)', () => {
	it.each([
		[1, 'Found 1 document'],
		[0, 'Found 0 documents'],
		[2, 'Found 2 documents'],
	])('%i found → "%s"', async (found, text) => {
		const {port, logTexts} = portFinding(found);
		const outcome = await answerChosenEvent({port, job, model: 'm'});
		expect(outcome).toEqual({ok: true, documents: found});
		expect(logTexts.get('log_1')).toBe(text);
	});
});

describe('the same text on the local platform, whose built-in assistant answers through answerChosenEvent', () => {
	let platform: LocalPlatform;

	beforeAll(async () => {
		platform = (await startPlatform()).platform;
	});

	afterAll(async () => {
		await platform.close();
	});

	it('a chat holding one short document logs "Found 1 document"', async () => {
		const docs = makeFolder({'warranty.txt': 'Every Aurora Mini comes with a two-year limited warranty.\n'});
		const client = clientFor(platform);
		try {
			const result = await runUpload({client, folder: docs.dir, assistantId: platform.assistantId, prompt: 'How long is the warranty?', pollIntervalMs: 10});
			const {messages} = await client.getChatMessages(result.chatId);
			const assistant = (Array.isArray(messages) ? messages : []).find(message => message.role === 'ASSISTANT');
			expect(assistant).toBeDefined();
			const logs = platform.messageLogs(String(assistant?.id));
			expect(logs.map(log => log.text)).toContain('Found 1 document');
			expect(logs.some(log => log.text === 'Found 1 documents')).toBe(false);
		} finally {
			await client.close();
			docs.cleanup();
		}
	});
});
