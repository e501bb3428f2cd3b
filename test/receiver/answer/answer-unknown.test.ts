/**
 * The answer on a virtual clock with an in-memory port: a log create whose outcome is unknown is
 * not made again (one orphan at most, named by `log-unknown`), one refused before processing is,
 * and an attempt cut off by a stop ends waiting, due at once, without the apology.
 */
import {describe, expect, it} from 'vitest';
import {PlatformApiError, PlatformTimeoutError} from '../../../source/platform/errors.js';
import type {AnswerPort} from '../../../source/receiver/answer/answer-port.js';
import {answerChosenEvent} from '../../../source/receiver/answer/answer.js';
import type {JobOutcome} from '../../../source/receiver/answer/answer-types.js';
import type {StepRecord} from '../../../source/receiver/store/backend.js';
import type {ChosenJob} from '../../../source/receiver/intake/chosen-event.js';
import {retrySchedule} from '../../../source/receiver/answer/retry-schedule.js';

const job: ChosenJob = {eventId: 'evt_1', userId: 'user_1', companyId: 'company_1', chatId: 'chat_1', assistantMessageId: 'msg_1', text: 'Question?'};

/** A port whose create of log 1 is carried out and then fails with `createError` the first `failures` times. */
function world(createError: () => Error, failures: number, options: {holdCompletion?: AbortController} = {}) {
	const clock = {now: Date.parse('2026-01-01T00:00:00Z')};
	const schedule = retrySchedule({baseMs: 1000, now: () => clock.now, random: () => 0});
	const steps: StepRecord[] = [];
	const platform = {logs: [] as Array<{id: string; status: string}>, writes: [] as string[], failures};
	const port: AnswerPort = {
		createMessageLog(body) {
			const created = {id: `log_${platform.logs.length + 1}`, status: 'RUNNING'};
			const refusedBefore = createError() instanceof PlatformApiError;
			if (!(refusedBefore && platform.failures > 0)) {
				platform.logs.push(created);
			}

			if (platform.failures > 0) {
				platform.failures--;
				return Promise.reject(createError());
			}

			return Promise.resolve({...created, messageId: body.messageId, text: body.text, order: body.order, status: 'RUNNING' as const, createdAt: '', updatedAt: ''});
		},
		async updateMessageLog(id, body) {
			const log = platform.logs.find(entry => entry.id === id);
			if (log && body.status) {
				log.status = body.status;
			}

			return Promise.resolve({});
		},
		search: async () => Promise.resolve([{text: 'a document'}]),
		async chatCompletion(_body, call) {
			if (options.holdCompletion) {
				const {signal} = call;
				return new Promise((_resolve, reject) => {
					signal?.addEventListener('abort', () => {
						reject(signal.reason as Error);
					});
					options.holdCompletion?.abort(new Error('the receiver shut down and the job did not finish within the 25 s drain time'));
				});
			}

			return Promise.resolve({choices: [{message: {content: 'The answer.'}}]} as never);
		},
		async modifyMessage(_id, body) {
			platform.writes.push(body.text);
			return Promise.resolve({});
		},
		getMessage: async () => Promise.resolve({}),
	};
	const attempt = async (signal?: AbortSignal): Promise<JobOutcome> => answerChosenEvent({
		port, job, model: 'm', steps: [...steps], retry: {schedule, receivedAtMs: clock.now}, ...(signal ? {signal} : {}),
		async recordStep(step) {
			steps.push(step);
			return Promise.resolve();
		},
	});
	return {platform, steps, attempt};
}

const timeout = () => new PlatformTimeoutError({operation: 'createMessageLog', method: 'POST', path: '/message-log', timeoutMs: 60_000});
const rateLimited = () => new PlatformApiError({operation: 'createMessageLog', method: 'POST', path: '/message-log', status: 429, platformMessage: 'slow down', retryAfterSeconds: 1});

describe('a log create whose outcome is unknown', () => {
	it('is not made again: the answer goes on without logs, the one orphan named by log-unknown', async () => {
		const {platform, steps, attempt} = world(timeout, 1);
		expect(await attempt()).toMatchObject({ok: false, waiting: {phase: 'answer'}});
		expect(await attempt()).toEqual({ok: true, documents: 1});
		// The platform made one log (the orphan); no second create, no log 2 after it.
		expect(platform.logs).toEqual([{id: 'log_1', status: 'RUNNING'}]);
		expect(platform.writes).toEqual(['The answer.']);
		expect(steps.filter(step => step.name === 'log-requested')).toHaveLength(1);
		expect(steps.find(step => step.name === 'log-unknown')).toMatchObject({data: {order: 1}, error: expect.stringContaining('may stay RUNNING') as unknown});
	});

	it('a create refused before processing (429) is made by the next attempt', async () => {
		const {platform, steps, attempt} = world(rateLimited, 1);
		expect(await attempt()).toMatchObject({ok: false, waiting: {phase: 'answer'}});
		expect(await attempt()).toEqual({ok: true, documents: 1});
		expect(platform.logs.map(log => log.status)).toEqual(['COMPLETED', 'COMPLETED']);
		expect(steps.filter(step => step.name === 'log-refused')).toHaveLength(1);
	});
});

describe('an attempt cut off by a stop', () => {
	it('ends waiting, due at once: no log FAILED, no apology; the next attempt answers', async () => {
		const stop = new AbortController();
		const cut = world(timeout, 0, {holdCompletion: stop});
		const outcome = await cut.attempt(stop.signal);
		expect(outcome).toMatchObject({ok: false, waiting: {phase: 'answer', until: '2026-01-01T00:00:00.000Z', reason: expect.stringContaining('drain') as unknown}});
		expect(cut.platform.writes).toEqual([]);
		expect(cut.platform.logs.map(log => log.status)).toEqual(['COMPLETED', 'RUNNING']);
		expect(cut.steps.some(step => step.name === 'failing')).toBe(false);
	});
});
