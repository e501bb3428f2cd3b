/**
 * While the store cannot record (a full disk), an answer pauses: no platform write after the step
 * that could not be stored, in particular no apology. Resumed from the steps that were stored, it
 * writes the answer once — never an apology first and the answer over it.
 */
import {describe, expect, it} from 'vitest';
import type {AnswerPort} from '../../source/receiver/answer/answer-port.js';
import {answerChosenEvent} from '../../source/receiver/answer/answer.js';
import {StoreCannotRecordError, type StepRecord} from '../../source/receiver/store/backend.js';
import type {ChosenJob} from '../../source/receiver/intake/chosen-event.js';

const job: ChosenJob = {eventId: 'evt_1', userId: 'user_1', companyId: 'company_1', chatId: 'chat_1', assistantMessageId: 'msg_1', text: 'Question?'};

function recordingPort(): {port: AnswerPort; calls: string[]; texts: string[]} {
	const calls: string[] = [];
	const texts: string[] = [];
	let logs = 0;
	const port: AnswerPort = {
		createMessageLog(body) {
			calls.push('createLog');
			return Promise.resolve({id: `log_${++logs}`, messageId: body.messageId, status: body.status, order: body.order, text: body.text, createdAt: '', updatedAt: ''} as never);
		},
		updateMessageLog(id) {
			calls.push('updateLog');
			return Promise.resolve({id} as never);
		},
		search() {
			calls.push('search');
			return Promise.resolve([{id: 'a', text: 'context'}] as never);
		},
		chatCompletion() {
			calls.push('completion');
			return Promise.resolve({choices: [{index: 0, message: {role: 'assistant', content: 'The answer.'}, finish_reason: 'stop'}]} as never);
		},
		modifyMessage(_id, body) {
			calls.push('modify');
			texts.push(body.text);
			return Promise.resolve({});
		},
		getMessage(id, chatId) {
			calls.push('get');
			return Promise.resolve({id, chatId, text: texts.at(-1) ?? null});
		},
	};
	return {port, calls, texts};
}

describe('an answer while the store cannot record', () => {
	it('pauses at the step it could not store (no apology, no message write) and, resumed, writes the answer once', async () => {
		const {port, calls, texts} = recordingPort();
		const stored: StepRecord[] = [];
		let full = false;
		const recordStep = async (step: StepRecord): Promise<void> => {
			if (full || step.name === 'completed') {
				// The disk fills as the completion comes back: this step and every later one fail.
				full = true;
				return Promise.reject(new StoreCannotRecordError('the disk holding the event journal is full'));
			}

			stored.push(step);
			return Promise.resolve();
		};

		await expect(answerChosenEvent({port, job, model: 'm', recordStep})).rejects.toBeInstanceOf(StoreCannotRecordError);
		expect(calls).not.toContain('modify');
		expect(calls.filter(call => call === 'updateLog')).toHaveLength(1);
		expect(stored.map(step => step.name)).not.toContain('failing');

		// Space returns: the attempt resumes from what was stored.
		full = false;
		const resumed: StepRecord[] = [...stored];
		const outcome = await answerChosenEvent({port, job, model: 'm', steps: [...stored], async recordStep(step) {
			resumed.push(step);
			return Promise.resolve();
		}});
		expect(outcome).toMatchObject({ok: true});
		expect(texts).toEqual(['The answer.']);
		expect(resumed.map(step => step.name)).not.toContain('failing');
	});

	it('a store failure inside the failure path stops before the apology', async () => {
		const {port, calls} = recordingPort();
		port.search = async () => {
			calls.push('search');
			return Promise.reject(new Error('search failed with HTTP 400'));
		};

		const recordStep = async (step: StepRecord): Promise<void> => step.name === 'failing' ? Promise.reject(new StoreCannotRecordError('the disk holding the event journal is full')) : Promise.resolve();

		await expect(answerChosenEvent({port, job, model: 'm', recordStep})).rejects.toBeInstanceOf(StoreCannotRecordError);
		expect(calls).not.toContain('modify');
	});
});
