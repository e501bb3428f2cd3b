/**
 * Durable retries of the answer (retry-schedule.ts) on a virtual clock: a transient failure ends
 * the attempt with a recorded wait, the next attempt resumes from the stored steps (as after a
 * restart), the apology is retried until it lands, and no final message is written unless the
 * store recorded that it is about to be.
 */
import {describe, expect, it} from 'vitest';
import {PlatformApiError, PlatformConnectionError} from '../../../source/platform/errors.js';
import type {AnswerPort} from '../../../source/receiver/answer/answer-port.js';
import {answerChosenEvent} from '../../../source/receiver/answer/answer.js';
import type {JobOutcome} from '../../../source/receiver/answer/answer-types.js';
import {apologyText} from '../../../source/receiver/answer/answer-text.js';
import type {StepRecord} from '../../../source/receiver/store/backend.js';
import type {ChosenJob} from '../../../source/receiver/intake/chosen-event.js';
import {retrySchedule, waitsOf} from '../../../source/receiver/answer/retry-schedule.js';

const job: ChosenJob = {eventId: 'evt_1', userId: 'user_1', companyId: 'company_1', chatId: 'chat_1', assistantMessageId: 'msg_1', text: 'Question?'};

const unavailable = (op: string) => new PlatformApiError({operation: op, method: 'POST', path: `/${op}`, status: 503, platformMessage: 'down'});
const refused = (op: string) => new PlatformConnectionError({operation: op, method: 'POST', path: `/${op}`, target: '127.0.0.1:1', code: 'ECONNREFUSED'});

type Fault = (op: string) => Error | undefined;

/** A platform in memory: every call counted; `fault` decides, call by call, whether it fails. */
function platform() {
	const state = {fault: (() => undefined) as Fault, writes: [] as string[], logsCreated: 0, calls: [] as string[], message: {text: null as string | null, completedAt: undefined as string | undefined}};
	const hit = async (op: string) => new Promise<void>((resolve, reject) => {
		state.calls.push(op);
		const error = state.fault(op);
		if (error) {
			reject(error);
		} else {
			resolve();
		}
	});
	const port: AnswerPort = {
		async createMessageLog(body) {
			await hit('createLog');
			state.logsCreated++;
			return {id: `log_${state.logsCreated}`, messageId: body.messageId, status: body.status, order: body.order, text: body.text, createdAt: '', updatedAt: ''};
		},
		async updateMessageLog() {
			await hit('updateLog');
			return {};
		},
		async search() {
			await hit('search');
			return [{text: 'a document'}];
		},
		async chatCompletion() {
			await hit('completion');
			return {choices: [{message: {content: 'The answer.'}}]} as never;
		},
		async modifyMessage(_id, body) {
			await hit('modify');
			state.writes.push(body.text);
			state.message = {text: body.text, completedAt: body.completedAt};
			return {};
		},
		async getMessage() {
			await hit('get');
			return {...state.message};
		},
	};
	return {port, state};
}

/** A virtual clock and a store of steps that survives "restarts" (each attempt is a new call). */
function world(options: {answerDeadlineMs?: number; finalDeadlineMs?: number} = {}) {
	const clock = {now: Date.parse('2026-01-01T00:00:00Z')};
	const schedule = retrySchedule({baseMs: 1000, capMs: 60_000, answerDeadlineMs: options.answerDeadlineMs ?? 600_000, finalDeadlineMs: options.finalDeadlineMs ?? 86_400_000, now: () => clock.now, random: () => 0});
	const receivedAtMs = clock.now;
	const steps: StepRecord[] = [];
	const {port, state} = platform();
	const attempt = async (refuse?: (step: StepRecord) => boolean): Promise<JobOutcome> => answerChosenEvent({
		port,
		job,
		model: 'm',
		steps: [...steps],
		retry: {schedule, receivedAtMs},
		async recordStep(step) {
			return new Promise<void>((resolve, reject) => {
				if (refuse?.(step)) {
					reject(new Error('ENOSPC: no space left on device'));
					return;
				}

				steps.push(step);
				resolve();
			});
		},
	});
	/** Moves the virtual clock to the next attempt the steps name. */
	const toNextAttempt = () => {
		const {nextAttemptMs} = waitsOf(steps);
		expect(nextAttemptMs).toBeDefined();
		clock.now = Math.max(clock.now, nextAttemptMs ?? clock.now);
	};

	return {clock, steps, state, attempt, toNextAttempt, receivedAtMs};
}

describe('durable retries of the answer', () => {
	it('a transient failure waits on a stored schedule (exponential, Retry-After honoured) and resumes from the stored steps without repeating them', async () => {
		const {state, steps, attempt, toNextAttempt, clock} = world();
		let completionFailures = 3;
		state.fault = op => {
			if (op === 'completion' && completionFailures > 0) {
				completionFailures--;
				return completionFailures === 0
					? new PlatformApiError({operation: 'chatCompletion', method: 'POST', path: '/openai/chat/completions', status: 429, platformMessage: 'slow down', retryAfterSeconds: 30})
					: unavailable(op);
			}

			return undefined;
		};

		const waits: string[] = [];
		for (let round = 0; round < 3; round++) {
			const outcome = await attempt();
			expect(outcome).toMatchObject({ok: false, waiting: {phase: 'answer', tries: round + 1}});
			waits.push('waiting' in outcome ? outcome.waiting.until : '');
			toNextAttempt();
		}

		// 1 s × 2ⁿ with the jitter at its low end (half), then the 429's Retry-After of 30 s.
		const start = Date.parse('2026-01-01T00:00:00Z');
		expect(waits.map(until => Date.parse(until) - start)).toEqual([500, 500 + 1000, 500 + 1000 + 30_000]);
		expect(clock.now - start).toBe(31_500);
		// A fresh attempt, as after a restart: only the steps are carried over.
		expect(await attempt()).toEqual({ok: true, documents: 1});
		expect(state.logsCreated).toBe(2);
		expect(state.calls.filter(op => op === 'search')).toHaveLength(1);
		expect(state.writes).toEqual(['The answer.']);
		expect(steps.filter(step => step.name === 'waiting').map(step => step.data?.tries)).toEqual([1, 2, 3]);
	});

	it('a permanent failure (a 4xx other than 408/429) skips the wait: the apology at once', async () => {
		const {state, attempt} = world();
		state.fault = op => (op === 'search' ? new PlatformApiError({operation: 'search', method: 'POST', path: '/search', status: 404, platformMessage: 'no such chat'}) : undefined);
		const outcome = await attempt();
		expect(outcome).toMatchObject({ok: false, cleanup: {apologyWritten: true}});
		expect(state.writes).toEqual([apologyText]);
	});

	it('past the answer deadline the apology is written, and retried until it lands', async () => {
		const {state, steps, attempt, toNextAttempt, clock, receivedAtMs} = world({answerDeadlineMs: 10_000, finalDeadlineMs: 3_600_000});
		state.fault = op => (op === 'get' ? undefined : refused(op));
		let outcome = await attempt();
		for (let round = 0; round < 20 && 'waiting' in outcome && outcome.waiting.phase === 'answer'; round++) {
			toNextAttempt();
			outcome = await attempt();
		}

		// The deadline passed: the failure path started, and the apology cannot land yet.
		expect(clock.now).toBe(receivedAtMs + 10_000);
		expect(outcome).toMatchObject({ok: false, waiting: {phase: 'apology'}});
		expect(steps.some(step => step.name === 'failing')).toBe(true);
		for (let round = 0; round < 3; round++) {
			toNextAttempt();
			outcome = await attempt();
			expect(outcome).toMatchObject({ok: false, waiting: {phase: 'apology'}});
		}

		state.fault = () => undefined;
		toNextAttempt();
		outcome = await attempt();
		expect(outcome).toMatchObject({ok: false, cleanup: {apologyWritten: true}});
		expect(state.writes).toEqual([apologyText]);
		// The intent was recorded once, before the first try of the write; the message written once.
		expect(steps.filter(step => step.name === 'final-writing')).toHaveLength(1);
		expect(steps.filter(step => step.name === 'message-written')).toHaveLength(1);
		// Further attempts (a redelivery, a late timer) write nothing.
		expect(await attempt()).toMatchObject({ok: false, cleanup: {apologyWritten: true}});
		expect(state.writes).toEqual([apologyText]);
	});

	it('past the final-message deadline the event fails without writing', async () => {
		const {state, attempt, toNextAttempt} = world({answerDeadlineMs: 1000, finalDeadlineMs: 5000});
		state.fault = op => unavailable(op);
		let outcome = await attempt();
		for (let round = 0; round < 30 && 'waiting' in outcome; round++) {
			toNextAttempt();
			outcome = await attempt();
		}

		expect(outcome).toMatchObject({ok: false, cleanup: {apologyWritten: false}});
		expect(state.writes).toEqual([]);
	});

	it('once the answer is about to be written it stays the final message: past the deadline it is retried, never the apology', async () => {
		const {state, attempt, toNextAttempt, clock, receivedAtMs} = world({answerDeadlineMs: 2000});
		let modifies = 0;
		state.fault = op => (op === 'modify' && modifies++ < 4 ? unavailable(op) : undefined);
		let outcome = await attempt();
		for (let round = 0; round < 10 && 'waiting' in outcome; round++) {
			toNextAttempt();
			outcome = await attempt();
		}

		expect(clock.now).toBeGreaterThan(receivedAtMs + 2000);
		expect(outcome).toEqual({ok: true, documents: 1});
		expect(state.writes).toEqual(['The answer.']);
	});
});

describe('no platform write while the store cannot record', () => {
	it('a store refusing the final message\'s intent: no write at all; the answer waits and writes once the store records again', async () => {
		const {state, steps, attempt} = world();
		const outcome = await attempt(step => step.name === 'final-writing' || step.name === 'waiting');
		expect(outcome).toMatchObject({ok: false, waiting: {phase: 'store'}});
		expect(state.calls).not.toContain('modify');
		expect(state.writes).toEqual([]);
		// The wait could not be recorded either: the next attempt comes from the backend's own resume.
		expect(steps.some(step => step.name === 'waiting')).toBe(false);
		expect(await attempt()).toEqual({ok: true, documents: 1});
		expect(state.writes).toEqual(['The answer.']);
		expect(state.calls.filter(op => op === 'modify')).toHaveLength(1);
	});

	it('a store refusing every step: not one platform write (no log, no message), and no apology', async () => {
		const {state, attempt} = world();
		const outcome = await attempt(() => true);
		expect(outcome).toMatchObject({ok: false, waiting: {phase: 'store'}});
		expect(state.calls).toEqual([]);
	});

	it('without a retry schedule, a store refusing the apology\'s intent leaves the message unwritten', async () => {
		const {port, state} = platform();
		state.fault = op => (op === 'search' ? new Error('bad answer') : undefined);
		const outcome = await answerChosenEvent({port, job, model: 'm', async recordStep(step) {
			return step.name === 'final-writing' ? Promise.reject(new Error('EROFS')) : Promise.resolve();
		}});
		expect(outcome).toMatchObject({ok: false, cleanup: {apologyWritten: false}});
		expect(state.calls).not.toContain('modify');
	});
});
