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
import {errorMessage} from '../../format/value.js';
import {PlatformApiError, PlatformConnectionError} from '../../platform/errors.js';
import type {PortCall} from './answer-port.js';
import {fail, pastAnswerDeadline, StoreRefusedError, waitAfterStop, waitFor, writeFinal, type Run} from './answer-final.js';
import {buildContext, completionTemperature, logTexts, searchLimit, systemMessage} from './answer-text.js';
import {applyStep, foldSteps, stepNames, type LogOrder} from './answer-steps.js';
import {StoreCannotRecordError, type StepRecord} from '../store/backend.js';
import type {ChosenJob} from '../intake/chosen-event.js';
import type {AnswerOptions, JobOutcome} from './answer-types.js';
import {waitsOf} from './retry-schedule.js';

export {StoreRefusedError, storeRetryMs} from './answer-final.js';

/** The reason of an event that names where to answer but not the question. */
export const missingTextReason = 'the event has no payload.userMessage.text to answer';

function startRun(options: AnswerOptions): Run {
	const progress = foldSteps(options.steps);
	return {
		options,
		progress,
		resumedFrom: options.steps?.[0] ? Date.parse(options.steps[0].at) : undefined,
		async record(name, extra = {}, recordOptions) {
			const step: StepRecord = {name, at: new Date().toISOString(), ...extra};
			try {
				await (recordOptions?.later ? options.recordStep?.(step, recordOptions) : options.recordStep?.(step));
			} catch (error) {
				// A store that cannot record now (a full disk) pauses the attempt as it is.
				throw error instanceof StoreCannotRecordError ? error : new StoreRefusedError(name, error);
			}

			applyStep(progress, step);
		},
	};
}

function callOf(job: ChosenJob, signal: AbortSignal | undefined): PortCall {
	return signal ? {userId: job.userId, companyId: job.companyId, signal} : {userId: job.userId, companyId: job.companyId};
}

/**
 * Whether a failed creation was provably not carried out: refused before anything was processed
 * (429, 503 with Retry-After, another 4xx but 408) or never sent whole.
 */
function refusedBeforeCreating(error: unknown): boolean {
	if (error instanceof PlatformApiError) {
		return error.status === 429 || (error.status === 503 && error.retryAfterSeconds !== undefined) || (error.status >= 400 && error.status < 500 && error.status !== 408);
	}

	return error instanceof PlatformConnectionError && error.notSent;
}

/**
 * Creates log `order` unless an earlier attempt did. Once a creation's outcome is unknown (the
 * platform may have made a log whose id is lost), the event creates no log again: that one may
 * stay RUNNING, named by its `log-unknown` step, and the answer goes on without logs.
 */
async function ensureLog(run: Run, order: LogOrder, call: PortCall): Promise<void> {
	if (run.progress.logs[order] || run.progress.orphan !== undefined) {
		return;
	}

	const {job} = run.options;
	const text = order === 1 ? logTexts.searching : logTexts.generating;
	await run.record(stepNames.logRequested, {data: {order}});
	let log: {id: string};
	try {
		log = await run.options.port.createMessageLog({messageId: job.assistantMessageId, text, status: 'RUNNING', order}, call);
	} catch (error) {
		const refused = refusedBeforeCreating(error);
		try {
			await run.record(refused ? stepNames.logRefused : stepNames.logUnknown, {data: {order}, error: refused ? errorMessage(error) : `log ${order} may have been created and is not created again (it may stay RUNNING): ${errorMessage(error)}`});
		} catch {
			// The `log-requested` step stands: a later attempt takes its outcome as unknown.
		}

		throw error;
	}

	await run.record(stepNames.logCreated, {data: {order, id: log.id}});
}

async function completeLog(run: Run, order: LogOrder, text: string, call: PortCall): Promise<void> {
	const log = run.progress.logs[order];
	if (log?.status !== 'RUNNING') {
		return;
	}

	await run.options.port.updateMessageLog(log.id, {status: 'COMPLETED', text}, call);
	// Set COMPLETED again by a resume that misses it: the same update.
	await run.record(stepNames.logCompleted, {data: {order, id: log.id}}, {later: true});
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
		await run.record(stepNames.searched, {data: built}, {later: true});
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
		// Stored at the latest with `final-writing`: the message written is always the one recorded.
		await run.record(stepNames.completed, {data: {text: completion.choices[0].message.content}}, {later: true});
	}

	await completeLog(run, 2, logTexts.generated, call);
	const answerText = run.progress.completion ?? '';
	await writeFinal(run, answerText, false, call);

	try {
		// Spares a resume only a read: one that finds `final-writing` alone reads the message back
		// and writes nothing over it. So a store may keep it for the outcome (Redis stores both at once).
		await run.record(stepNames.messageWritten, {data: {apology: false}}, {later: true});
	} catch {
		// The answer is written: a store failing now must not put the apology over it. A resume
		// would write the same text again, which changes nothing.
	}

	return documents;
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
		if (error instanceof StoreCannotRecordError) {
			throw error;
		}

		const cutOff = signal?.aborted === true;
		const reason = errorMessage(cutOff && signal.reason instanceof Error ? signal.reason : error);
		// Once the answer's write is intended, it stays the final message: retried until the final deadline.
		const phase = run.progress.intent ? 'final' : 'answer';
		const waiting = cutOff ? await waitAfterStop(run, reason) : await waitFor(run, error, phase, phase);
		if (waiting) {
			return waiting;
		}

		return fail(run, reason);
	}
}
