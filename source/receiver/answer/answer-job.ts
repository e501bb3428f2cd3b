/**
 * The backend's job handler: runs the answer for one stored chosen event, resumed from its
 * recorded steps, and reports its stages as receiver events. It also keeps the `processing`,
 * `answered` and `failed` counters, since a job may start in this process without having been
 * accepted here (resumed after a crash, taken over from another replica, replayed).
 */
import {errorMessage, isRecord} from '../../format/value.js';
import {answerChosenEvent} from './answer.js';
import type {FailureCleanup, JobOutcome, StageUpdate} from './answer-types.js';
import {isoMs} from '../clock.js';
import type {RetrySchedule} from './retry-schedule.js';
import type {AnswerPort} from './answer-port.js';
import type {JobHandle, JobHandler, JobResult} from '../store/backend.js';
import {bodyText} from '../intake/body.js';
import {parseChosenEvent, type ChosenJob} from '../intake/chosen-event.js';
import type {JobStage, ReceiverCounters, StageEvent} from '../events.js';
import {OpenJobs} from '../store/open-jobs.js';

export type AnswerJobContext = {
	port: AnswerPort;
	model: string;
	cleanupTimeoutMs: number;
	/** Durable retries of transient failures (serve); without it a failure takes the failure path at once. */
	schedule?: RetrySchedule;
	counters: ReceiverCounters;
	emit(event: StageEvent): void;
	now(): string;
};

/** The stored error of a failed answer: the reason, and whether the apology could not be written. */
function failureText(reason: string, cleanup: FailureCleanup): string {
	return cleanup.apologyWritten ? reason : `${reason}; the apology could not be written (${cleanup.errors.join('; ')})`;
}

/** Hooks of one stored answer: when it starts (its job known), its stages, and how it ended. */
export type StoredAnswerHooks = {
	onStart?: (job: ChosenJob) => void;
	onStage?: (job: ChosenJob, update: StageUpdate) => void;
	onEnd?: (job: ChosenJob, outcome: JobOutcome) => void;
};

/**
 * Answers one stored chosen event (its body read again, its recorded steps resumed) and words the
 * result as the backend stores it. Shared by serve and `events replay`.
 */
export async function answerStoredEvent(handle: JobHandle, options: {port: AnswerPort; model: string; cleanupTimeoutMs?: number; schedule?: RetrySchedule} & StoredAnswerHooks): Promise<JobResult> {
	const {event, signal, recordStep} = handle;
	let parsed: unknown;
	try {
		parsed = JSON.parse(bodyText(event)) as unknown;
	} catch (error) {
		return {status: 'failed', error: `the stored body is not JSON: ${errorMessage(error)}`};
	}

	const result = parseChosenEvent(isRecord(parsed) ? parsed : {}, event.id);
	if ('missing' in result) {
		return {status: 'failed', error: `the event lacks ${result.missing.join(', ')}`};
	}

	const {job} = result;
	options.onStart?.(job);
	const outcome = await answerChosenEvent({
		port: options.port,
		job,
		model: options.model,
		signal,
		steps: event.steps,
		recordStep,
		...(options.cleanupTimeoutMs === undefined ? {} : {cleanupTimeoutMs: options.cleanupTimeoutMs}),
		...(options.schedule === undefined ? {} : {retry: {schedule: options.schedule, receivedAtMs: receivedMs(event.receivedAt, options.schedule)}}),
		onStage(update) {
			options.onStage?.(job, update);
		},
	});
	options.onEnd?.(job, outcome);
	if (outcome.ok) {
		return {status: 'answered'};
	}

	return 'waiting' in outcome
		? {status: 'waiting', nextAttemptAt: outcome.waiting.until, error: outcome.waiting.reason}
		: {status: 'failed', error: failureText(outcome.reason, outcome.cleanup)};
}

/** The event's arrival (ms), where the deadlines count from; now when unreadable. */
function receivedMs(receivedAt: string, schedule: RetrySchedule): number {
	const ms = isoMs(receivedAt);
	return Number.isNaN(ms) ? schedule.now() : ms;
}

/** A job handler that answers stored chosen events (for `events replay` and other one-off runs). */
export function storedEventJob(port: AnswerPort, model: string): JobHandler {
	return async handle => answerStoredEvent(handle, {port, model});
}

export type AnswerJobs = {
	handler: JobHandler;
	/** Counts an event accepted for processing (once per id) and notes when, for its duration. */
	track(eventId: string, chatId?: string): void;
	/** The events counted in `processing`. */
	open: OpenJobs;
};

/** serve's job handler: the stored answer, with its stages reported and the counters kept. */
export function answerJobs(context: AnswerJobContext): AnswerJobs {
	const {counters} = context;
	/** Chosen events counted in `processing`, with when they were accepted. */
	const open = new OpenJobs(counters);
	/** Events counted in `failed`: a replay that fails again is still one failed event. */
	const failedIds = new Set<string>();
	const stage = (job: ChosenJob, stageName: JobStage, extra: Omit<StageEvent, 'type' | 'at' | 'eventId' | 'chatId' | 'stage'> = {}) => {
		context.emit({type: 'stage', at: context.now(), eventId: job.eventId, chatId: job.chatId, stage: stageName, ...extra});
	};

	const handler: JobHandler = async handle => answerStoredEvent(handle, {
		port: context.port,
		model: context.model,
		cleanupTimeoutMs: context.cleanupTimeoutMs,
		...(context.schedule === undefined ? {} : {schedule: context.schedule}),
		onStart(job) {
			// A later attempt (resumed after a restart, taken over from another replica, replayed) was
			// not accepted by this process just now: it is counted here, and its row starts here.
			const again = !open.has(job.eventId) && handle.event.attempts > 1;
			open.start(job.eventId);
			if (again) {
				stage(job, 'queued');
			}
		},
		onStage(job, update) {
			if (update.stage === 'searching') {
				stage(job, 'searching');
			} else if (update.stage === 'generating') {
				stage(job, 'generating', {documents: update.documents});
			}
		},
		onEnd(job, outcome) {
			const durationMs = open.end(job.eventId);
			// Redis lost the job's record while it ran (a wipe): it ended from this replica's copy.
			const lost = handle.storeLost?.() === true ? {storeLost: true} : {};
			if (outcome.ok) {
				counters.answered++;
				if (failedIds.delete(job.eventId)) {
					counters.failed--;
				}

				stage(job, 'answered', {documents: outcome.documents, durationMs, ...lost});
			} else if ('waiting' in outcome) {
				const {until, phase, reason, tries} = outcome.waiting;
				stage(job, 'waiting', {nextAttemptAt: until, waitingFor: phase, tries, reason, ...lost});
			} else {
				if (!failedIds.has(job.eventId)) {
					failedIds.add(job.eventId);
					counters.failed++;
				}

				stage(job, 'failed', {durationMs, reason: outcome.reason, cleanup: outcome.cleanup, ...lost});
			}
		},
	});

	return {handler, track: (eventId, chatId) => {
		open.track(eventId, chatId);
	}, open};
}
