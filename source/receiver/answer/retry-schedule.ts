/**
 * When an answer (or a forward) that failed for a transient reason is tried again: the schedule
 * is stored with the event as a `waiting` step (its next attempt, how many waits so far, why), so
 * it survives a restart and moves with the event to another replica. Exponential with jitter on
 * the upper half, a `Retry-After` honoured; bounded by the answer deadline (then the apology is
 * written) and the final-message deadline (then the event fails without a final message).
 */
import {errorMessage, isRecord} from '../../format/value.js';
import {PlatformApiError, PlatformConnectionError, PlatformTimeoutError} from '../../platform/errors.js';
import type {StepRecord} from '../store/backend.js';

export const waitingStep = 'waiting';

/** What a wait is for: the answer itself, the apology after the answer deadline, the forward. */
export type WaitPhase = 'answer' | 'apology' | 'final' | 'forward' | 'store';

export type RetrySchedule = {
	/** Time from the event's arrival to the last attempt at the answer (or forward), ms. Default 10 min. */
	answerDeadlineMs: number;
	/** Time from the event's arrival to the last attempt at a final message (the apology), ms. Default 24 h. */
	finalDeadlineMs: number;
	/** First wait, ms (doubled each time, jittered on the upper half). Default 5 s. */
	baseMs: number;
	/** Longest wait, ms. Default 5 min. */
	capMs: number;
	/** ms since the epoch (tests pass a virtual clock). */
	now: () => number;
	/** A number in [0, 1) for the jitter. */
	random: () => number;
};

export const defaultAnswerDeadlineMs = 10 * 60 * 1000;
export const defaultFinalDeadlineMs = 24 * 60 * 60 * 1000;

export function retrySchedule(options: Partial<RetrySchedule> = {}): RetrySchedule {
	return {
		answerDeadlineMs: options.answerDeadlineMs ?? defaultAnswerDeadlineMs,
		finalDeadlineMs: options.finalDeadlineMs ?? defaultFinalDeadlineMs,
		baseMs: options.baseMs ?? 5000,
		capMs: options.capMs ?? 5 * 60 * 1000,
		now: options.now ?? Date.now,
		random: options.random ?? Math.random,
	};
}

/** A transient failure: the call may succeed later. `retryAfterMs` when the platform said when. */
export type Transient = {transient: true; reason: string; retryAfterMs?: number};

/** Statuses worth waiting for: a timeout, a rate limit, a server error. Every other 4xx is permanent. */
export function isTransientStatus(status: number): boolean {
	return status === 408 || status === 429 || status >= 500;
}

/** Whether a failed platform call is worth another attempt later (no connection, timeout, reset, 408, 429, 5xx). */
export function transientFailure(error: unknown): Transient | undefined {
	if (error instanceof PlatformApiError) {
		if (!isTransientStatus(error.status)) {
			return undefined;
		}

		const retryAfterMs = error.retryAfterSeconds === undefined ? undefined : error.retryAfterSeconds * 1000;
		return {transient: true, reason: errorMessage(error), ...(retryAfterMs === undefined ? {} : {retryAfterMs})};
	}

	if (error instanceof PlatformConnectionError || error instanceof PlatformTimeoutError) {
		return {transient: true, reason: errorMessage(error)};
	}

	return undefined;
}

/** The wait before attempt `tries + 1` (tries: waits so far, from 0): base × 2^tries, capped, jittered; a Retry-After wins when longer. */
export function retryDelay(schedule: RetrySchedule, tries: number, retryAfterMs?: number): number {
	const backoff = Math.min(schedule.capMs, schedule.baseMs * (2 ** Math.min(tries, 30)));
	const jittered = (backoff / 2) + (schedule.random() * backoff / 2);
	return Math.round(retryAfterMs === undefined ? jittered : Math.max(jittered, Math.min(retryAfterMs, schedule.capMs * 4)));
}

/** The waits recorded in `steps`, and the last one's next attempt (ms), if any. */
export function waitsOf(steps: readonly StepRecord[]): {tries: number; nextAttemptMs?: number; phase?: WaitPhase} {
	let tries = 0;
	let last: StepRecord | undefined;
	for (const step of steps) {
		if (step.name === waitingStep) {
			tries++;
			last = step;
		}
	}

	const until = last && isRecord(last.data) ? last.data.until : undefined;
	const phase = last && isRecord(last.data) ? last.data.phase : undefined;
	const nextAttemptMs = typeof until === 'string' ? Date.parse(until) : Number.NaN;
	return {tries, ...(Number.isNaN(nextAttemptMs) ? {} : {nextAttemptMs}), ...(typeof phase === 'string' ? {phase: phase as WaitPhase} : {})};
}

/**
 * The next attempt of an event whose last step is a wait (ISO 8601), else undefined: a step after
 * the wait means an attempt started since.
 */
export function nextAttemptOf(steps: readonly StepRecord[]): string | undefined {
	const last = steps.at(-1);
	if (last?.name !== waitingStep || !isRecord(last.data) || typeof last.data.until !== 'string') {
		return undefined;
	}

	return last.data.until;
}

/** The `waiting` step that schedules the next attempt `delayMs` from now. */
export function waitStep(schedule: RetrySchedule, options: {delayMs: number; tries: number; phase: WaitPhase; reason: string}): StepRecord {
	const now = schedule.now();
	return {
		name: waitingStep,
		at: new Date(now).toISOString(),
		data: {until: new Date(now + options.delayMs).toISOString(), tries: options.tries, phase: options.phase},
		error: options.reason,
	};
}
