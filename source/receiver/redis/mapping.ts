/**
 * How an event lives in BullMQ, and back. The job id is the event id; the job data is the event as
 * the receiver handed it over (never rewritten); the job progress holds the answer steps of the
 * current attempt (rewritten at each step, so a large body is not copied again and again); the
 * return value or failed reason is the outcome. Pure: no Redis here.
 */
import type {EventStatus, NewEvent, StepRecord, StoredEvent} from '../store/backend.js';
import {isRecord} from '../../format/value.js';
import {nextAttemptOf} from '../answer/retry-schedule.js';

import type {JobState as BullState} from 'bullmq';

/** A BullMQ job state, or `unknown` for a job that is gone. */
export type JobState = BullState | 'unknown';

/** The job fields the mapping needs (a structural subset of BullMQ's `Job`). */
export type JobView = {
	id?: string;
	data: NewEvent;
	progress: unknown;
	returnvalue: unknown;
	failedReason?: string;
	timestamp: number;
	processedOn?: number;
	finishedOn?: number;
	attemptsStarted: number;
};

/** What the job progress holds. */
export type JobProgress = {steps: StepRecord[]};

export function progressOf(steps: StepRecord[]): JobProgress {
	return {steps};
}

export function stepsOf(progress: unknown): StepRecord[] {
	if (isRecord(progress) && Array.isArray(progress.steps)) {
		return progress.steps as StepRecord[];
	}

	return [];
}

function resultStatus(value: unknown): EventStatus {
	return isRecord(value) && value.status === 'failed' ? 'failed' : 'answered';
}

export function statusOf(job: JobView, state: JobState, steps: StepRecord[]): EventStatus {
	if (job.data.status !== 'received') {
		return job.data.status;
	}

	switch (state) {
		case 'completed': {
			return resultStatus(job.returnvalue);
		}

		case 'failed': {
			return 'failed';
		}

		case 'active': {
			return 'processing';
		}

		default: {
			if (state === 'delayed' && nextAttemptOf(steps) !== undefined) {
				return 'waiting';
			}

			// Back in the queue after its replica died, with steps done: still in progress.
			return steps.length > 0 ? 'processing' : 'received';
		}
	}
}

function iso(ms: number | undefined): string | undefined {
	return ms === undefined || !Number.isFinite(ms) || ms <= 0 ? undefined : new Date(ms).toISOString();
}

/** The stored event a job stands for, in the journal's shape. */
export function toStoredEvent(job: JobView, state: JobState): StoredEvent {
	const steps = stepsOf(job.progress);
	const status = statusOf(job, state, steps);
	const finished = state === 'completed' || state === 'failed';
	const lastStepAt = steps.at(-1)?.at;
	const times = [job.timestamp, job.processedOn ?? 0, finished ? job.finishedOn ?? 0 : 0, lastStepAt ? Date.parse(lastStepAt) : 0];
	const event: StoredEvent = {
		...job.data,
		status,
		updatedAt: iso(Math.max(...times.filter(time => Number.isFinite(time)))) ?? job.data.receivedAt,
		steps,
		attempts: job.attemptsStarted,
	};
	if (status === 'waiting') {
		const next = nextAttemptOf(steps);
		if (next !== undefined) {
			event.nextAttemptAt = next;
		}
	}

	if (finished && job.data.status === 'received') {
		const finishedAt = iso(job.finishedOn);
		if (finishedAt !== undefined) {
			event.finishedAt = finishedAt;
		}

		if (job.finishedOn !== undefined && job.processedOn !== undefined) {
			event.durationMs = Math.max(0, job.finishedOn - job.processedOn);
		}
	}

	if (status === 'failed') {
		event.error = job.failedReason ?? (isRecord(job.returnvalue) && typeof job.returnvalue.error === 'string' ? job.returnvalue.error : undefined);
		if (event.error === undefined) {
			delete event.error;
		}
	}

	return event;
}

/**
 * The BullMQ job id of an event id. BullMQ refuses ids that look like integers or contain `:`;
 * those are escaped (`%` → `%25`, `:` → `%3A`, an integer gets a `%23` prefix), so every event id
 * maps to one job id and back through the job data.
 */
export function jobIdOf(eventId: string): string {
	const escaped = eventId.replaceAll('%', '%25').replaceAll(':', '%3A');
	return String(Number.parseInt(escaped, 10)) === escaped ? `%23${escaped}` : escaped;
}
