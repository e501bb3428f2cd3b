/**
 * The backend's job handler: runs the answer for one stored chosen event, resumed from its
 * recorded steps, and reports its stages as receiver events. It also keeps the `processing`,
 * `answered` and `failed` counters, since a job may start in this process without having been
 * accepted here (resumed after a crash, taken over from another replica, replayed).
 */
import {errorMessage, isRecord} from '../format/value.js';
import {answerChosenEvent, type FailureCleanup} from './answer.js';
import type {AnswerPort} from './answer-port.js';
import type {JobHandler, JobResult} from './backend.js';
import {parseChosenEvent} from './chosen-event.js';
import type {JobStage, ReceiverCounters, StageEvent} from './events.js';

export type AnswerJobContext = {
	port: AnswerPort;
	model: string;
	cleanupTimeoutMs: number;
	counters: ReceiverCounters;
	emit(event: StageEvent): void;
	now(): string;
};

/** The stored error of a failed answer: the reason, and whether the apology could not be written. */
function failureText(reason: string, cleanup: FailureCleanup): string {
	return cleanup.apologyWritten ? reason : `${reason}; the apology could not be written (${cleanup.errors.join('; ')})`;
}

export type AnswerJobs = {
	handler: JobHandler;
	/** Counts an event accepted for processing (once per id) and notes when, for its duration. */
	track(eventId: string): void;
};

export function answerJobs(context: AnswerJobContext): AnswerJobs {
	const {counters} = context;
	/** Chosen events counted in `processing`, with when they were accepted (ms, performance clock). */
	const open = new Map<string, number>();
	const track = (eventId: string) => {
		if (!open.has(eventId)) {
			counters.processing++;
			open.set(eventId, performance.now());
		}
	};

	const handler: JobHandler = async ({event, signal, recordStep}): Promise<JobResult> => {
		let parsed: unknown;
		try {
			parsed = JSON.parse(event.body) as unknown;
		} catch (error) {
			return {status: 'failed', error: `the stored body is not JSON: ${errorMessage(error)}`};
		}

		const result = parseChosenEvent(isRecord(parsed) ? parsed : {}, event.id);
		if ('missing' in result) {
			return {status: 'failed', error: `the event lacks ${result.missing.join(', ')}`};
		}

		const {job} = result;
		track(job.eventId);
		const stage = (stageName: JobStage, extra: Omit<StageEvent, 'type' | 'at' | 'eventId' | 'chatId' | 'stage'> = {}) => {
			context.emit({type: 'stage', at: context.now(), eventId: job.eventId, chatId: job.chatId, stage: stageName, ...extra});
		};

		const outcome = await answerChosenEvent({
			port: context.port,
			job,
			model: context.model,
			signal,
			steps: event.steps,
			recordStep,
			cleanupTimeoutMs: context.cleanupTimeoutMs,
			onStage(update) {
				if (update.stage === 'searching') {
					stage('searching');
				} else if (update.stage === 'generating') {
					stage('generating', {documents: update.documents});
				}
			},
		});
		const durationMs = Math.round(performance.now() - (open.get(job.eventId) ?? performance.now()));
		open.delete(job.eventId);
		counters.processing--;
		if (outcome.ok) {
			counters.answered++;
			stage('answered', {documents: outcome.documents, durationMs});
			return {status: 'answered'};
		}

		counters.failed++;
		stage('failed', {durationMs, reason: outcome.reason, cleanup: outcome.cleanup});
		return {status: 'failed', error: failureText(outcome.reason, outcome.cleanup)};
	};

	return {handler, track};
}
