/**
 * Runs one platform operation: attempt after attempt until success, a failure that is final for
 * the operation's retry class, the retries are spent, or the operation's total time is up. Every
 * error that leaves here is a `PlatformError` settled with its attempt count and elapsed time; an
 * aborted caller signal ends it at once with the signal's reason.
 */
import {neverAborted, timeoutSignal, type Clock} from './clock.js';
import {
	PlatformApiError,
	PlatformConnectionError,
	PlatformError,
	PlatformTimeoutError,
	errorCode,
} from './errors.js';
import type {Pacer} from './pacer.js';
import {notSentMark} from './transport.js';
import {retryDelay, type OperationName, type RetryClass, type RetryTiming} from './retry.js';

export type RequestLogEntry = {
	method: string;
	/** Path (API) or host and path (blob); never the query of a pre-signed address. */
	path: string;
	attempt: number;
	status?: number;
	requestId?: string;
	durationMs: number;
	error?: string;
	/** The key used, masked. */
	key?: string;
	retryInMs?: number;
	/** Why the attempt before a retry failed, in a few words: `HTTP 503`, `ECONNRESET`, `a timeout`. */
	reason?: string;
};

export type AttemptPlan = {
	operation: OperationName;
	/** When a failed attempt is tried again (the operation's class, or `create` for a call sent once). */
	retryClass: RetryClass;
	method: string;
	path: string;
	/** Host named when the connection fails. */
	target: string;
	/** Retries after the first attempt. */
	retries: number;
	/** Time allowed to one attempt, ms. */
	attemptTimeoutMs: number;
	/** Time allowed to all attempts and the waits between them, ms. */
	totalTimeoutMs: number;
	signal?: AbortSignal | undefined;
	timing: RetryTiming;
	log: (entry: RequestLogEntry) => void;
	/** Paces every attempt (a call rate) and spreads a 429's wait to every caller of the client. */
	pacer?: Pacer | undefined;
	/** Times the attempts, the waits between them and the operation's total. */
	clock: Clock;
};

function classify(error: unknown, plan: AttemptPlan, timedOut: boolean, timeoutMs: number): PlatformError {
	if (error instanceof PlatformError) {
		return error;
	}

	const where = {operation: plan.operation, method: plan.method, path: plan.path};
	const code = errorCode(error);
	if (timedOut) {
		return new PlatformTimeoutError({...where, timeoutMs});
	}

	const notSent = typeof error === 'object' && error !== null && notSentMark in error;
	return new PlatformConnectionError({...where, target: plan.target, code, cause: error, notSent});
}

/** The failure of an attempt in a few words, for the retry that follows it. */
function shortReason(failure: PlatformError): string {
	if (failure instanceof PlatformApiError) {
		return `HTTP ${failure.status}`;
	}

	if (failure instanceof PlatformTimeoutError) {
		return 'a timeout';
	}

	return failure instanceof PlatformConnectionError && failure.systemCode ? failure.systemCode : 'a connection failure';
}

export async function runAttempts<T>(plan: AttemptPlan, attemptOnce: (signal: AbortSignal, attempt: number) => Promise<T>): Promise<T> {
	const {clock} = plan;
	const started = clock.now();
	const elapsed = () => clock.now() - started;
	const {retryClass} = plan;
	for (let attempt = 1; ; attempt++) {
		plan.signal?.throwIfAborted();
		if (plan.pacer) {
			try {
				await plan.pacer.acquire(plan.signal);
			} catch (error) {
				throw plan.signal?.reason ?? error;
			}
		}

		const attemptMs = Math.max(1, Math.ceil(Math.min(plan.attemptTimeoutMs, plan.totalTimeoutMs - elapsed())));
		const timeout = timeoutSignal(clock, attemptMs);
		const signal = plan.signal ? AbortSignal.any([plan.signal, timeout.signal]) : timeout.signal;
		let failure: PlatformError;
		const attemptStarted = clock.now();
		try {
			return await attemptOnce(signal, attempt);
		} catch (error) {
			if (plan.signal?.aborted) {
				throw plan.signal.reason ?? error;
			}

			failure = classify(error, plan, timeout.signal.aborted, attemptMs);
			if (!(failure instanceof PlatformApiError)) {
				plan.log({method: plan.method, path: plan.path, attempt, durationMs: clock.now() - attemptStarted, error: failure.message});
			}
		} finally {
			timeout.clear();
		}

		const delay = retryDelay(failure, retryClass, attempt, plan.timing);
		if (plan.pacer && failure instanceof PlatformApiError && failure.status === 429) {
			plan.pacer.pause(delay ?? Math.min(failure.retryAfterSeconds ?? 1, plan.timing.maxRetryAfterSeconds) * 1000);
		}

		if (delay === undefined || attempt > plan.retries || elapsed() + delay >= plan.totalTimeoutMs) {
			throw failure.settle(attempt, elapsed());
		}

		plan.log({method: plan.method, path: plan.path, attempt, durationMs: 0, retryInMs: Math.round(delay), error: failure.message, reason: shortReason(failure)});
		await clock.sleep(delay, plan.signal ?? neverAborted);
		plan.signal?.throwIfAborted();
	}
}
