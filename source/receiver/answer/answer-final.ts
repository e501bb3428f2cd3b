/**
 * The end of an answer: the final message written once (its intent recorded first), the failure
 * path (logs FAILED, the apology), and the waits a transient failure ends an attempt with
 * (retry-schedule.ts). Used by answer.ts only.
 */
import {errorMessage, isRecord} from '../../format/value.js';
import type {PortCall} from './answer-port.js';
import {StoreCannotRecordError, type RecordOptions} from '../store/backend.js';
import {apologyText} from './answer-text.js';
import {openLogs, stepNames, type AnswerProgress} from './answer-steps.js';
import type {AnswerOptions, JobOutcome, WaitOutcome} from './answer-types.js';
import {retryDelay, transientFailure, waitsOf, waitStep, type WaitPhase} from './retry-schedule.js';

/** A step the store could not record: the answer stops before its next platform call. */
export class StoreRefusedError extends Error {
	override name = 'StoreRefusedError';

	constructor(step: string, cause: unknown) {
		super(`the store could not record step ${step}: ${errorMessage(cause)}`, {cause});
	}
}

/** How long an answer whose store refused a step waits before it is tried again, ms. */
export const storeRetryMs = 5000;

/** One attempt at an answer: its options, where it stands, and how it records a step. */
export type Run = {
	options: AnswerOptions;
	progress: AnswerProgress;
	/** When the earlier attempt whose steps were given started (ms): it may have written the message before it died. */
	resumedFrom: number | undefined;
	/** Records a step (`later`: see `RecordOptions`). */
	record(name: string, extra?: {data?: Record<string, unknown>; error?: string}, options?: RecordOptions): Promise<void>;
};

/** Time allowed to the read-back of a final message that may have been written (all its attempts), ms: its own, not the write's. */
export const readBackTimeoutMs = 10_000;

/** Whether the final-message deadline has passed (only with a retry schedule). */
function pastFinalDeadline(run: Run): boolean {
	const {retry} = run.options;
	return retry !== undefined && retry.schedule.now() > retry.receivedAtMs + retry.schedule.finalDeadlineMs;
}

/**
 * On a resume, whether the assistant message already holds `text`, completed since the earlier
 * attempt started (the completion time is the one this receiver wrote): that attempt wrote it and
 * died, or timed out, before it could record so. Read back (GET /messages/{id}?chatId=) within its
 * own deadline so the answer is never written twice. A read-back that fails for a transient reason
 * is thrown: the attempt waits for its next scheduled one rather than writing blindly; without a
 * schedule, past the final-message deadline or for a lasting reason the message is written (a
 * write too many rather than none).
 */
async function alreadyWritten(run: Run, text: string, call: PortCall, since: number | undefined): Promise<boolean> {
	if (since === undefined) {
		return false;
	}

	const {job, port} = run.options;
	let message: unknown;
	try {
		message = await port.getMessage(job.assistantMessageId, job.chatId, {...call, timeoutMs: readBackTimeoutMs, totalTimeoutMs: readBackTimeoutMs});
	} catch (error) {
		if (call.signal?.aborted === true || (run.options.retry !== undefined && transientFailure(error) !== undefined && !pastFinalDeadline(run))) {
			throw error;
		}

		return false;
	}

	return isRecord(message) && message.text === text && typeof message.completedAt === 'string' && !(Date.parse(message.completedAt) < since);
}

/**
 * Writes the final message: first the intent is recorded (a store that refuses throws
 * `StoreRefusedError` and nothing is written), then the message, unless an earlier attempt that
 * recorded the same intent already wrote it. Once sent the write is not sent again within this
 * call (it is retried only where the platform provably did not carry it out): a write whose answer
 * is lost ends the attempt, and the next one reads the message back first.
 */
export async function writeFinal(run: Run, text: string, apology: boolean, call: PortCall): Promise<void> {
	const {port, job} = run.options;
	// An earlier attempt (this intent's, or one that ran before intents were recorded) may have written it.
	const since = run.progress.intent?.at ?? run.resumedFrom;
	if (run.progress.intent === undefined) {
		await run.record(stepNames.finalWriting, {data: {apology}});
	}

	if (await alreadyWritten(run, text, call, since)) {
		return;
	}

	const now = new Date().toISOString();
	await port.modifyMessage(job.assistantMessageId, {chatId: job.chatId, text, stoppedStreamingAt: now, completedAt: now}, {...call, sentOnce: true});
}

/** Records a step of the failure path; a store that fails here must not stop the clean-up of logs. */
async function recordQuietly(run: Run, name: string, extra: {data?: Record<string, unknown>; error?: string}, errors: string[]): Promise<void> {
	try {
		await run.record(name, extra);
	} catch (error) {
		errors.push(`recording step ${name}: ${errorMessage(error)}`);
	}
}

/**
 * Ends the attempt waiting when `error` is transient and the next attempt still falls before
 * `deadlineMs` (ms since the epoch); undefined otherwise. A store that refused a step waits too,
 * without any deadline: nothing was written to the platform for it.
 */
export async function waitFor(run: Run, error: unknown, phase: WaitPhase, deadline: 'answer' | 'final'): Promise<WaitOutcome | undefined> {
	const {retry} = run.options;
	const store = error instanceof StoreRefusedError;
	const transient = store ? {transient: true as const, reason: error.message} : transientFailure(error);
	if (retry === undefined || transient === undefined) {
		return undefined;
	}

	const {schedule, receivedAtMs} = retry;
	const {tries} = waitsOf(run.options.steps ?? []);
	const limitMs = receivedAtMs + (deadline === 'answer' ? schedule.answerDeadlineMs : schedule.finalDeadlineMs);
	const leftMs = limitMs - schedule.now();
	if (!store && leftMs <= 0) {
		return undefined;
	}

	// The last wait ends at the deadline: the attempt then finds it passed and takes the next path.
	const delayMs = store ? storeRetryMs : Math.min(retryDelay(schedule, tries, transient.retryAfterMs), leftMs);
	const step = waitStep(schedule, {delayMs, tries: tries + 1, phase: store ? 'store' : phase, reason: transient.reason});
	try {
		await run.options.recordStep?.(step);
	} catch {
		// The store refuses: the backend cannot record the wait either; it resumes the event later.
	}

	const until = String(step.data?.until);
	return {ok: false, waiting: {until, phase: store ? 'store' : phase, reason: transient.reason, tries: tries + 1}};
}

/**
 * The attempt cut off by a stop (the drain deadline) ends waiting, due at once: stopping is not
 * failing, so the event is left for the next start (or another replica) and the apology still
 * comes only at the answer deadline. Undefined without a retry schedule.
 */
export async function waitAfterStop(run: Run, reason: string): Promise<WaitOutcome | undefined> {
	const {retry} = run.options;
	if (retry === undefined) {
		return undefined;
	}

	const phase: WaitPhase = run.progress.intent ? 'final' : 'answer';
	const {tries} = waitsOf(run.options.steps ?? []);
	const step = waitStep(retry.schedule, {delayMs: 0, tries: tries + 1, phase, reason});
	// Recorded before the store closes (the backend stops after its jobs ended); a refusal leaves the
	// event as it stands, which the next start resumes all the same.
	try {
		await run.options.recordStep?.(step);
	} catch {
		// As above.
	}

	return {ok: false, waiting: {until: String(step.data?.until), phase, reason, tries: tries + 1}};
}

/** Whether the answer deadline has passed (only with a retry schedule). */
export function pastAnswerDeadline(run: Run): boolean {
	const {retry} = run.options;
	return retry !== undefined && retry.schedule.now() > retry.receivedAtMs + retry.schedule.answerDeadlineMs;
}

/**
 * The failure path: every open log (this attempt's or an earlier one's) → FAILED, then the final
 * message: the apology, which also stops the stream, or the answer when its write was already
 * intended (the final message never changes once intended). A transient failure of that write
 * waits and tries again until the final-message deadline.
 */
export async function fail(run: Run, reason: string): Promise<JobOutcome> {
	const {port, job} = run.options;
	const timeoutMs = run.options.cleanupTimeoutMs ?? 10_000;
	const errors: string[] = [];
	try {
		if (run.progress.failing === undefined) {
			await run.record(stepNames.failing, {error: reason});
		}
	} catch (error) {
		// A store that cannot record pauses here: an apology it could not record would be followed by the answer.
		if (error instanceof StoreCannotRecordError) {
			throw error;
		}

		return await waitFor(run, error, 'apology', 'final') ?? {ok: false, reason, cleanup: {logsFailed: 0, apologyWritten: false, errors: [errorMessage(error)]}};
	}

	// Each call bounded by the client's deadlines, not an abort: a late answer is a timeout, which waits
	// for the next attempt (that reads the message back) rather than ending the event unwritten.
	const callFor = (): PortCall => ({userId: job.userId, companyId: job.companyId, timeoutMs, totalTimeoutMs: timeoutMs});
	let logsFailed = 0;
	for (const {order, id} of openLogs(run.progress)) {
		try {
			await port.updateMessageLog(id, {status: 'FAILED'}, callFor());
			logsFailed++;
			await recordQuietly(run, stepNames.logFailed, {data: {order, id}}, errors);
		} catch (error) {
			errors.push(`closing log ${id}: ${errorMessage(error)}`);
		}
	}

	let apologyWritten = run.progress.written?.apology === true;
	if (!apologyWritten) {
		const answerIntended = run.progress.intent?.apology === false && run.progress.completion !== undefined;
		try {
			await writeFinal(run, answerIntended ? run.progress.completion ?? '' : apologyText, !answerIntended, callFor());
			apologyWritten = true;
			await recordQuietly(run, stepNames.messageWritten, {data: {apology: !answerIntended}}, errors);
			if (answerIntended) {
				return {ok: true, documents: run.progress.searched?.documents ?? 0};
			}
		} catch (error) {
			// The final message's intent could not be recorded: nothing was written; the attempt pauses.
			if (error instanceof StoreCannotRecordError) {
				throw error;
			}

			const waiting = await waitFor(run, error, 'apology', 'final');
			if (waiting) {
				return waiting;
			}

			const why = `writing the ${answerIntended ? 'answer' : 'apology'} to message ${job.assistantMessageId} in chat ${job.chatId}: ${errorMessage(error)}`;
			errors.push(why);
			await recordQuietly(run, stepNames.apologyFailed, {error: why}, errors);
		}
	}

	return {ok: false, reason, cleanup: {logsFailed, apologyWritten, errors}};
}
