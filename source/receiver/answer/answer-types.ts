/**
 * What an answer is given and what it ends with: the options of `answerChosenEvent` (answer.ts),
 * its stages and its outcome. Below the answer and its final-message steps (answer-final.ts),
 * which both read them.
 */
import type {ChosenJob} from '../intake/chosen-event.js';
import type {RecordOptions, StepRecord} from '../store/backend.js';
import type {AnswerPort} from './answer-port.js';
import type {RetrySchedule, WaitPhase} from './retry-schedule.js';

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
	 * further platform write (with `retry`, the attempt ends waiting for the store). Steps a resume
	 * can do again (the search, a log set COMPLETED, the model's answer) are given `later`: a store
	 * may keep them for the next step's write (RecordOptions).
	 */
	recordStep?: (step: StepRecord, options?: RecordOptions) => Promise<void>;
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
