/**
 * The answer to a chosen-module event (spec §6.2), the one implementation used by `serve` (through
 * the platform client) and by the local platform's built-in assistant (in memory), both through an
 * `AnswerPort`. It records its progress as steps (answer-steps.ts) and resumes from the steps it is
 * given, so an answer interrupted by a crash completes or fails every log it opened and writes the
 * message once.
 */
import {errorMessage, isRecord} from '../format/value.js';
import type {AnswerPort, PortCall} from './answer-port.js';
import {apologyText, buildContext, completionTemperature, logTexts, searchLimit, systemMessage} from './answer-text.js';
import {applyStep, foldSteps, openLogs, stepNames, type AnswerProgress, type LogOrder} from './answer-steps.js';
import {StoreCannotRecordError, type StepRecord} from './backend.js';
import type {ChosenJob} from './chosen-event.js';

export type StageUpdate =
	| {stage: 'searching'}
	| {stage: 'generating'; documents: number}
	| {stage: 'answered'; documents: number};

export type FailureCleanup = {logsFailed: number; apologyWritten: boolean; errors: string[]};

export type JobOutcome =
	| {ok: true; documents: number}
	| {ok: false; reason: string; cleanup: FailureCleanup};

export type AnswerOptions = {
	port: AnswerPort;
	job: ChosenJob;
	model: string;
	/** Aborted to cut the answer off (drain deadline); the failure path then runs with its own time budget. */
	signal?: AbortSignal;
	/** Steps recorded by an earlier attempt that did not finish (oldest first): the answer resumes after them. */
	steps?: readonly StepRecord[];
	/** Stores one step; awaited before the next platform call. A rejection sends the answer to its failure path. */
	recordStep?: (step: StepRecord) => Promise<void>;
	onStage?: (update: StageUpdate) => void;
	/** Time allowed to each call of the failure path (closing logs, the apology), ms. Default 10 000. */
	cleanupTimeoutMs?: number;
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
			applyStep(progress, step);
			await options.recordStep?.(step);
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
async function alreadyWritten(run: Run, text: string, call: PortCall): Promise<boolean> {
	const since = run.resumedFrom;
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
	const now = new Date().toISOString();
	const answerText = run.progress.completion ?? '';
	if (!await alreadyWritten(run, answerText, call)) {
		await port.modifyMessage(job.assistantMessageId, {chatId: job.chatId, text: answerText, stoppedStreamingAt: now, completedAt: now}, call);
	}

	try {
		await run.record(stepNames.messageWritten, {data: {apology: false}});
	} catch {
		// The answer is written: a store failing now must not put the apology over it. A resume
		// would write the same text again, which changes nothing.
	}

	return documents;
}

/** Records a step of the failure path; a store that fails here must not stop the clean-up. */
async function recordQuietly(run: Run, name: string, extra: {data?: Record<string, unknown>; error?: string}, errors: string[]): Promise<void> {
	try {
		await run.record(name, extra);
	} catch (error) {
		errors.push(`recording step ${name}: ${errorMessage(error)}`);
	}
}

/** As `recordQuietly`, but a store that cannot record (a full disk) stops the attempt. */
async function recordUnlessPaused(run: Run, name: string, extra: {data?: Record<string, unknown>; error?: string}, errors: string[]): Promise<void> {
	try {
		await run.record(name, extra);
	} catch (error) {
		if (error instanceof StoreCannotRecordError) {
			throw error;
		}

		errors.push(`recording step ${name}: ${errorMessage(error)}`);
	}
}

/** The failure path: every open log (this attempt's or an earlier one's) → FAILED, then the apology, which also stops the stream. */
async function fail(run: Run, reason: string): Promise<JobOutcome> {
	const {port, job} = run.options;
	const timeoutMs = run.options.cleanupTimeoutMs ?? 10_000;
	const errors: string[] = [];
	if (run.progress.failing === undefined) {
		// A store that cannot record pauses here: an apology it could not record would be followed by the answer.
		await recordUnlessPaused(run, stepNames.failing, {error: reason}, errors);
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
		try {
			const now = new Date().toISOString();
			if (!await alreadyWritten(run, apologyText, callFor())) {
				await port.modifyMessage(job.assistantMessageId, {chatId: job.chatId, text: apologyText, stoppedStreamingAt: now, completedAt: now}, callFor());
			}

			apologyWritten = true;
			await recordQuietly(run, stepNames.messageWritten, {data: {apology: true}}, errors);
		} catch (error) {
			const why = `writing the apology to message ${job.assistantMessageId} in chat ${job.chatId}: ${errorMessage(error)}`;
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
 * path is finished. Throws only `StoreCannotRecordError` (the store cannot record its steps: the
 * attempt pauses, nothing more is written to the platform); never otherwise.
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

	const {signal} = options;
	try {
		const documents = await answer(run, callOf(options.job, signal));
		options.onStage?.({stage: 'answered', documents});
		return {ok: true, documents};
	} catch (error) {
		if (error instanceof StoreCannotRecordError) {
			throw error;
		}

		return fail(run, errorMessage(signal?.aborted && signal.reason instanceof Error ? signal.reason : error));
	}
}
