import {describe, expect, it} from 'vitest';
import type {AnswerPort} from '../../../source/receiver/answer/answer-port.js';
import {answerChosenEvent, missingTextReason} from '../../../source/receiver/answer/answer.js';
import {unknownLogRequests} from '../../../source/receiver/answer/answer-steps.js';
import {apologyText} from '../../../source/receiver/answer/answer-text.js';
import type {StepRecord} from '../../../source/receiver/store/backend.js';
import type {ChosenJob} from '../../../source/receiver/intake/chosen-event.js';

type Call = {op: string; id?: string; body: unknown};

/** Runs `work` as a promise: a throw becomes a rejection, as over the wire. */
async function settle<T>(work: () => T): Promise<T> {
	return new Promise<T>(resolve => {
		resolve(work());
	});
}

/** The item at `index`, or a failed test. */
function at<T>(list: readonly T[], index: number): T {
	const item = list.at(index);
	if (item === undefined) {
		throw new Error(`no item at ${index} of ${list.length}`);
	}

	return item;
}

/** A recordStep that keeps the steps. */
function keep(steps: StepRecord[]): (step: StepRecord) => Promise<void> {
	return async step => settle(() => {
		steps.push(step);
	});
}

/** An in-memory port that records every call; `failOn` makes one operation throw. */
function memoryPort(options: {failOn?: (op: string, count: number) => boolean; answer?: string} = {}) {
	const calls: Call[] = [];
	const logs = new Map<string, {status: string; order: number; text?: string}>();
	const message: {text: string | null; completedAt?: string} = {text: null};
	const counts = new Map<string, number>();
	let nextLog = 0;
	const hit = (op: string) => {
		const count = (counts.get(op) ?? 0) + 1;
		counts.set(op, count);
		if (options.failOn?.(op, count)) {
			throw new Error(`${op} failed`);
		}
	};

	const port: AnswerPort = {
		createMessageLog: async body => settle(() => {
			calls.push({op: 'createLog', body});
			hit('createLog');
			const id = `log_${++nextLog}`;
			logs.set(id, {status: body.status, order: body.order, text: body.text});
			return {id, messageId: body.messageId, status: body.status, order: body.order, text: body.text, createdAt: '', updatedAt: ''} as never;
		}),
		updateMessageLog: async (id, body) => settle(() => {
			calls.push({op: 'updateLog', id, body});
			hit('updateLog');
			const log = logs.get(id) ?? {status: 'RUNNING', order: 0};
			logs.set(id, log);
			log.status = body.status ?? log.status;
			return {id} as never;
		}),
		search: async body => settle(() => {
			calls.push({op: 'search', body});
			hit('search');
			return [{id: 'a', text: 'x'.repeat(600)}, {id: 'b', text: 'y'}] as never;
		}),
		chatCompletion: async body => settle(() => {
			calls.push({op: 'completion', body});
			hit('completion');
			return {choices: [{index: 0, message: {role: 'assistant', content: options.answer ?? 'The answer.'}, finish_reason: 'stop'}]} as never;
		}),
		modifyMessage: async (id, body) => settle(() => {
			calls.push({op: 'modify', id, body});
			hit('modify');
			message.text = body.text;
			if (body.completedAt !== undefined) {
				message.completedAt = body.completedAt;
			}

			return {};
		}),
		getMessage: async (id, chatId) => settle(() => {
			calls.push({op: 'get', id, body: {chatId}});
			hit('get');
			return {id, chatId, ...message};
		}),
	};
	return {port, calls, logs, message};
}

const job: ChosenJob = {eventId: 'evt_1', userId: 'user_1', companyId: 'company_1', chatId: 'chat_1', assistantMessageId: 'msg_1', text: 'Question?'};

describe('answerChosenEvent with recorded steps', () => {
	it('records each step after its call, in order, and answers', async () => {
		const {port, calls} = memoryPort();
		const steps: StepRecord[] = [];
		const outcome = await answerChosenEvent({port, job, model: 'm', recordStep: keep(steps)});
		expect(outcome).toEqual({ok: true, documents: 2});
		expect(calls.map(call => call.op)).toEqual(['createLog', 'search', 'updateLog', 'createLog', 'completion', 'updateLog', 'modify']);
		expect(steps.map(step => step.name)).toEqual(['log-requested', 'log-created', 'searched', 'log-completed', 'log-requested', 'log-created', 'completed', 'log-completed', 'final-writing', 'message-written']);
		expect(at(steps, 2).data).toMatchObject({documents: 2, context: `${'x'.repeat(500)}\n---\ny`});
		expect(at(steps, 6).data).toEqual({text: 'The answer.'});
		expect(unknownLogRequests(steps)).toEqual([]);
		expect(at(calls, 2).body).toEqual({status: 'COMPLETED', text: 'Found 2 documents'});
	});

	it('leaves a trace of a log whose creation a crash cut off before its id was recorded', async () => {
		const first = memoryPort();
		const steps: StepRecord[] = [];
		// The platform creates log 2, then the process dies before `log-created` is stored.
		await answerChosenEvent({port: first.port, job, model: 'm', recordStep: async step => settle(() => {
			if (step.name === 'log-created' && step.data?.order === 2) {
				throw new Error('crash');
			}

			steps.push(step);
		})});
		const recorded = steps.slice(0, steps.findIndex(step => step.name === 'log-requested' && step.data?.order === 2) + 1);
		expect(unknownLogRequests(recorded)).toEqual([2]);
		const second = memoryPort();
		const more: StepRecord[] = [];
		const outcome = await answerChosenEvent({port: second.port, job, model: 'm', steps: recorded, recordStep: keep(more)});
		expect(outcome).toEqual({ok: true, documents: 2});
		// The resumed attempt creates log 2 anew; the lost one stays known as a request without its id.
		expect(unknownLogRequests([...recorded, ...more])).toEqual([2]);
	});

	it('resumes after a crash with a recorded completion: finishes the logs and writes the answer, never asking the model again', async () => {
		const first = memoryPort();
		const steps: StepRecord[] = [];
		// The first attempt "crashes" right after the completion was recorded.
		await answerChosenEvent({port: first.port, job, model: 'm', recordStep: async step => settle(() => {
			steps.push(step);
			if (step.name === 'completed') {
				throw new Error('crash');
			}
		})});
		const recorded = steps.slice(0, steps.findIndex(step => step.name === 'completed') + 1);
		const second = memoryPort({answer: 'Another answer'});
		const more: StepRecord[] = [];
		const outcome = await answerChosenEvent({port: second.port, job, model: 'm', steps: recorded, recordStep: keep(more)});
		expect(outcome).toEqual({ok: true, documents: 2});
		expect(second.calls.map(call => call.op)).toEqual(['updateLog', 'get', 'modify']);
		expect(at(second.calls, 0)).toMatchObject({id: at(recorded.filter(step => step.name === 'log-created'), 1).data?.id, body: {status: 'COMPLETED'}});
		expect(at(second.calls, 2).body).toMatchObject({text: 'The answer.'});
		expect(more.map(step => step.name)).toEqual(['log-completed', 'final-writing', 'message-written']);
	});

	it('does nothing when the message was written already', async () => {
		const {port, calls} = memoryPort();
		const steps: StepRecord[] = [
			{name: 'searched', at: '2025-01-01T00:00:00Z', data: {context: 'c', documents: 1}},
			{name: 'message-written', at: '2025-01-01T00:00:01Z', data: {apology: false}},
		];
		expect(await answerChosenEvent({port, job, model: 'm', steps})).toEqual({ok: true, documents: 1});
		expect(calls).toEqual([]);
	});

	it('resuming a search that was cut off: the open log is reused and completed, not left RUNNING', async () => {
		const {port, calls, logs} = memoryPort();
		logs.set('log_old', {status: 'RUNNING', order: 1});
		const steps: StepRecord[] = [{name: 'log-created', at: '2025-01-01T00:00:00Z', data: {order: 1, id: 'log_old'}}];
		const outcome = await answerChosenEvent({port, job, model: 'm', steps});
		expect(outcome.ok).toBe(true);
		expect(calls.map(call => call.op)).toEqual(['search', 'updateLog', 'createLog', 'completion', 'updateLog', 'get', 'modify']);
		expect(logs.get('log_old')?.status).toBe('COMPLETED');
	});

	it('a resumed failure path closes the logs of the earlier attempt and writes the apology once', async () => {
		const {port, calls} = memoryPort();
		const steps: StepRecord[] = [
			{name: 'log-created', at: '2025-01-01T00:00:00Z', data: {order: 1, id: 'log_a'}},
			{name: 'log-completed', at: '2025-01-01T00:00:01Z', data: {order: 1, id: 'log_a'}},
			{name: 'log-created', at: '2025-01-01T00:00:02Z', data: {order: 2, id: 'log_b'}},
			{name: 'failing', at: '2025-01-01T00:00:03Z', error: 'model down'},
		];
		const outcome = await answerChosenEvent({port, job, model: 'm', steps});
		expect(outcome).toEqual({ok: false, reason: 'model down', cleanup: {logsFailed: 1, apologyWritten: true, errors: []}});
		expect(calls.map(call => `${call.op} ${call.id ?? ''}`.trim())).toEqual(['updateLog log_b', 'get msg_1', 'modify msg_1']);
		expect(at(calls, 2).body).toMatchObject({text: apologyText});
		expect(at(calls, 2).body).toHaveProperty('stoppedStreamingAt');
	});

	it('a resume whose earlier attempt wrote the message and died before recording it reads the message back and writes nothing again', async () => {
		const first = memoryPort();
		const steps: StepRecord[] = [];
		// The first attempt writes the message and "crashes" before its message-written step is stored.
		await answerChosenEvent({port: first.port, job, model: 'm', recordStep: async step => settle(() => {
			if (step.name === 'message-written') {
				throw new Error('crash');
			}

			steps.push(step);
		})});
		expect(first.calls.filter(call => call.op === 'modify')).toHaveLength(1);
		const more: StepRecord[] = [];
		const outcome = await answerChosenEvent({port: first.port, job, model: 'm', steps, recordStep: keep(more)});
		expect(outcome).toEqual({ok: true, documents: 2});
		expect(first.calls.filter(call => call.op === 'modify')).toHaveLength(1);
		expect(first.calls.at(-1)?.op).toBe('get');
		expect(more.map(step => step.name)).toEqual(['message-written']);
	});

	it('the same for an apology written by a failure path that died before recording it', async () => {
		const {port, calls, message} = memoryPort();
		message.text = apologyText;
		message.completedAt = '2025-01-01T00:00:04.000Z';
		const steps: StepRecord[] = [
			{name: 'log-created', at: '2025-01-01T00:00:00Z', data: {order: 1, id: 'log_a'}},
			{name: 'failing', at: '2025-01-01T00:00:03Z', error: 'model down'},
			{name: 'log-failed', at: '2025-01-01T00:00:03Z', data: {order: 1, id: 'log_a'}},
		];
		const outcome = await answerChosenEvent({port, job, model: 'm', steps, recordStep: keep([])});
		expect(outcome).toMatchObject({ok: false, cleanup: {apologyWritten: true}});
		expect(calls.map(call => call.op)).toEqual(['get']);
	});

	it('an event without the user text takes the failure path: no log, the apology written', async () => {
		const {port, calls} = memoryPort();
		const withoutText: ChosenJob = {...job};
		delete withoutText.text;
		const outcome = await answerChosenEvent({port, job: withoutText, model: 'm'});
		expect(outcome).toMatchObject({ok: false, reason: missingTextReason, cleanup: {logsFailed: 0, apologyWritten: true}});
		expect(calls.map(call => call.op)).toEqual(['modify']);
	});

	it('says why the apology could not be written', async () => {
		const {port} = memoryPort({failOn: op => op === 'completion' || op === 'modify'});
		const outcome = await answerChosenEvent({port, job, model: 'm'});
		expect(outcome).toMatchObject({ok: false, reason: 'completion failed', cleanup: {logsFailed: 1, apologyWritten: false}});
		expect(outcome.ok || 'waiting' in outcome ? [] : outcome.cleanup.errors).toEqual(['writing the apology to message msg_1 in chat chat_1: modify failed']);
	});

	it('works without steps or recordStep', async () => {
		const {port} = memoryPort();
		expect(await answerChosenEvent({port, job, model: 'm'})).toEqual({ok: true, documents: 2});
	});
});
