/**
 * The answer to a chosen-module event (spec §6.2), the one implementation used by `serve` (through
 * the platform client) and by the local platform's built-in assistant (in memory), both through an
 * `AnswerPort`. It records its progress as steps (answer-steps.ts) and resumes from the steps it is
 * given, so an answer interrupted by a crash completes or fails every log it opened and writes the
 * message once. With a retry schedule (retry-schedule.ts), a transient failure ends the attempt
 * with a recorded wait instead of the apology; the backend runs it again when the wait is over.
 * The final message is written only after the store recorded that it is about to be: a store that
 * cannot record stops the answer before any platform write.
 */
import {errorMessage, isRecord} from '../format/value.js';
import type {AnswerPort, PortCall} from './answer-port.js';
import {apologyText, buildContext, completionTemperature, logTexts, searchLimit, systemMessage} from './answer-text.js';
import {applyStep, foldSteps, openLogs, stepNames, type AnswerProgress, type LogOrder} from './answer-steps.js';
import type {StepRecord} from './backend.js';
import type {ChosenJob} from './chosen-event.js';
import {retryDelay, transientFailure, waitsOf, waitStep, type RetrySchedule, type WaitPhase} from './retry-schedule.js';

export type StageUpdate =
	| {stage: 'searching'}
	| {stage: 'generating'; documents: number}
	| {stage: 'answered'; documents: number};

export type FailureCleanup = {logsFailed: number; apologyWritten: boolean; errors: string[]};

/** An attempt that ended waiting: the next one is due at `until` (ISO 8601). */
export type WaitOutcome = {ok: false; waiting: {until: string; phase: WaitPhase; reason: string; tries: number}};

export type JobOutcome =
	| {ok: true; documents: number}
	| {ok: false; reason: string; cleanup: FailureCleanup}
	| WaitOutcome;

/** A step the store could not record: the answer stops before its next platform call. */
export class StoreRefusedError extends Error {
	override name = 'StoreRefusedError';

	constructor(step: string, cause: unknown) {
		super(`the store could not record step ${step}: ${errorMessage(cause)}`, {cause});
	}
}

/** How long an answer whose store refused a step waits before it is tried again, ms. */
export const storeRetryMs = 5000;

export type AnswerOptions = {
	port: AnswerPort;
	job: ChosenJob;
	model: string;
	/** Aborted to cut the answer off (drain deadline); the failure path then runs with its own time budget. */
	signal?: AbortSignal;
	/** Steps recorded by an earlier attempt that did not finish (oldest first): the answer resumes after them. */
	steps?: readonly StepRecord[];
	/**
	 * Stores one step; awaited before the next platform call. A rejection stops the answer before any
	 * further platform write (with `retry`, the attempt ends waiting for the store).
	 */
	recordStep?: (step: StepRecord) => Promise<void>;
	onStage?: (update: StageUpdate) => void;
	/** Time allowed to each call of the failure path (closing logs, the apology), ms. Default 10 000. */
	cleanupTimeoutMs?: number;
	/**
	 * Durable retries: a transient failure records a wait and ends the attempt (the backend runs the
	 * event again when it is due) until the answer deadline, then the apology until the final-message
	 * deadline, both counted from `receivedAtMs`. Without it, any failure takes the failure path at once.
	 */
	retry?: {schedule: RetrySchedule; receivedAtMs: number};
};

/** The reason of an event that names where to answer but not the question. */
export const missingTextReason = 'the event has no payload.userMessage.text to answer';

type Run = {
	options: AnswerOptions;
	progress: AnswerProgress;
	/** When the earlier attempt whose steps were given started (ms): it may have written the message before it died. */
	resumedFrom: number | undefined;
	record(name: string, extra?: {data?: Record<string, unknown>; error?: string}): Promise<void>;
};

function startRun(options: AnswerOptions): Run {
	const progress = foldSteps(options.steps);
	return {
		options,
		progress,
		resumedFrom: options.steps?.[0] ? Date.parse(options.steps[0].at) : undefined,
		async record(name, extra = {}) {
			const step: StepRecord = {name, at: new Date().toISOString(), ...extra};
			try {
				await options.recordStep?.(step);
			} catch (error) {
				throw new StoreRefusedError(name, error);
			}

			applyStep(progress, step);
		},
	};
}

function callOf(job: ChosenJob, signal: AbortSignal | undefined): PortCall {
	return signal ? {userId: job.userId, companyId: job.companyId, signal} : {userId: job.userId, companyId: job.companyId};
}

/**
 * On a resume, whether the assistant message already holds `text`, completed since the earlier
 * attempt started (the completion time is the one this receiver wrote): that attempt wrote it and
 * died before it could record so. Read back (GET /messages/{id}?chatId=) so the answer is never
 * written twice; when the read fails, the message is written (a write too many rather than none).
 */
async function alreadyWritten(run: Run, text: string, call: PortCall, since: number | undefined): Promise<boolean> {
	if (since === undefined) {
		return false;
	}

	const {job, port} = run.options;
	try {
		const message = await port.getMessage(job.assistantMessageId, job.chatId, call);
		return isRecord(message) && message.text === text && typeof message.completedAt === 'string' && !(Date.parse(message.completedAt) < since);
	} catch {
		return false;
	}
}

/** Creates log `order` unless an earlier attempt did; returns its id. */
async function ensureLog(run: Run, order: LogOrder, call: PortCall): Promise<string> {
	const known = run.progress.logs[order];
	if (known) {
		return known.id;
	}

	const {job} = run.options;
	const text = order === 1 ? logTexts.searching : logTexts.generating;
	await run.record(stepNames.logRequested, {data: {order}});
	const log = await run.options.port.createMessageLog({messageId: job.assistantMessageId, text, status: 'RUNNING', order}, call);
	await run.record(stepNames.logCreated, {data: {order, id: log.id}});
	return log.id;
}

async function completeLog(run: Run, order: LogOrder, text: string, call: PortCall): Promise<void> {
	const log = run.progress.logs[order];
	if (log?.status !== 'RUNNING') {
		return;
	}

	await run.options.port.updateMessageLog(log.id, {status: 'COMPLETED', text}, call);
	await run.record(stepNames.logCompleted, {data: {order, id: log.id}});
}

/** Steps 1–8 of spec §6.2, each skipped when the recorded steps show it done. */
async function answer(run: Run, call: PortCall): Promise<number> {
	const {port, job, model, onStage, signal} = run.options;
	signal?.throwIfAborted();
	const {text} = job;
	if (text === undefined) {
		throw new TypeError(missingTextReason);
	}

	onStage?.({stage: 'searching'});
	await ensureLog(run, 1, call);
	if (!run.progress.searched) {
		const results = await port.search({searchString: text, searchType: 'COMBINED', limit: searchLimit, chatId: job.chatId}, call);
		const built = buildContext(results);
		await run.record(stepNames.searched, {data: built});
	}

	const {context, documents} = run.progress.searched ?? buildContext([]);
	await completeLog(run, 1, logTexts.found(documents), call);
	onStage?.({stage: 'generating', documents});
	await ensureLog(run, 2, call);
	if (run.progress.completion === undefined) {
		const completion = await port.chatCompletion({
			model,
			messages: [
				{role: 'system', content: systemMessage(context)},
				{role: 'user', content: text},
			],
			options: {temperature: completionTemperature},
		}, call);
		await run.record(stepNames.completed, {data: {text: completion.choices[0].message.content}});
	}

	await completeLog(run, 2, logTexts.generated, call);
	const answerText = run.progress.completion ?? '';
	await writeFinal(run, answerText, false, call);

	try {
		await run.record(stepNames.messageWritten, {data: {apology: false}});
	} catch {
		// The answer is written: a store failing now must not put the apology over it. A resume
		// would write the same text again, which changes nothing.
	}

	return documents;
}

/**
 * Writes the final message: first the intent is recorded (a store that refuses throws
 * `StoreRefusedError` and nothing is written), then the message, unless an earlier attempt that
 * recorded the same intent already wrote it.
 */
async function writeFinal(run: Run, text: string, apology: boolean, call: PortCall): Promise<void> {
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
	await port.modifyMessage(job.assistantMessageId, {chatId: job.chatId, text, stoppedStreamingAt: now, completedAt: now}, call);
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
async function waitFor(run: Run, error: unknown, phase: WaitPhase, deadline: 'answer' | 'final'): Promise<WaitOutcome | undefined> {
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

/** Whether the answer deadline has passed (only with a retry schedule). */
function pastAnswerDeadline(run: Run): boolean {
	const {retry} = run.options;
	return retry !== undefined && retry.schedule.now() > retry.receivedAtMs + retry.schedule.answerDeadlineMs;
}

/**
 * The failure path: every open log (this attempt's or an earlier one's) → FAILED, then the final
 * message: the apology, which also stops the stream, or the answer when its write was already
 * intended (the final message never changes once intended). A transient failure of that write
 * waits and tries again until the final-message deadline.
 */
async function fail(run: Run, reason: string): Promise<JobOutcome> {
	const {port, job} = run.options;
	const timeoutMs = run.options.cleanupTimeoutMs ?? 10_000;
	const errors: string[] = [];
	try {
		if (run.progress.failing === undefined) {
			await run.record(stepNames.failing, {error: reason});
		}
	} catch (error) {
		return await waitFor(run, error, 'apology', 'final') ?? {ok: false, reason, cleanup: {logsFailed: 0, apologyWritten: false, errors: [errorMessage(error)]}};
	}

	const callFor = (): PortCall => ({userId: job.userId, companyId: job.companyId, signal: AbortSignal.timeout(timeoutMs)});
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

/**
 * Answers a chosen-module event exactly as spec §6.2 says, every call made for the event's user
 * and company: log 1 RUNNING → search → context → log 1 COMPLETED → log 2 RUNNING → chat
 * completion → log 2 COMPLETED → assistant message written (with stoppedStreamingAt and
 * completedAt). On any exception every log still open is set FAILED, then the assistant message
 * gets the apology. Given the steps of an interrupted attempt it goes on from there: a recorded
 * completion is not asked for again, a written message is not written again, a started failure
 * path is finished. Never throws.
 */
export async function answerChosenEvent(options: AnswerOptions): Promise<JobOutcome> {
	const run = startRun(options);
	const {written, failing, searched} = run.progress;
	if (written) {
		return written.apology
			? {ok: false, reason: failing ?? 'the answer failed', cleanup: {logsFailed: 0, apologyWritten: true, errors: []}}
			: {ok: true, documents: searched?.documents ?? 0};
	}

	if (failing !== undefined) {
		return fail(run, failing);
	}

	const intendedAnswer = run.progress.intent?.apology === false;
	if (!intendedAnswer && pastAnswerDeadline(run)) {
		const last = waitsOf(options.steps ?? []);
		const lastReason = options.steps?.findLast(step => step.name === 'waiting')?.error;
		return fail(run, `no answer within the answer deadline after ${last.tries} ${last.tries === 1 ? 'wait' : 'waits'}${lastReason ? `: ${lastReason}` : ''}`);
	}

	const {signal} = options;
	try {
		const documents = await answer(run, callOf(options.job, signal));
		options.onStage?.({stage: 'answered', documents});
		return {ok: true, documents};
	} catch (error) {
		const cutOff = signal?.aborted === true;
		// Once the answer's write is intended, it stays the final message: retried until the final deadline.
		const waiting = cutOff ? undefined : await waitFor(run, error, run.progress.intent ? 'final' : 'answer', run.progress.intent ? 'final' : 'answer');
		if (waiting) {
			return waiting;
		}

		return fail(run, errorMessage(cutOff && signal.reason instanceof Error ? signal.reason : error));
	}
}
