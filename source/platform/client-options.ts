/**
 * What a platform client is configured with, and how one call's options become an attempt plan
 * (timeouts, retries, backoff) for `runAttempts`.
 */
import type {AttemptPlan, RequestLogEntry} from './attempts.js';
import {monotonicClock, type Clock} from './clock.js';
import type {Pacer} from './pacer.js';
import type {RequestLog} from './request-log.js';
import {retryClasses, type OperationName, type RetryClass} from './retry.js';
import type {Transport} from './transport.js';

/** Returns the API key to use; read on every request so a key rotated on disk is picked up. */
export type KeySupplier = () => string;

/** Time allowed to one small JSON call, and to all its attempts together (ms). */
export const defaultAttemptTimeoutMs = 15_000;
export const defaultTotalTimeoutMs = 45_000;

/**
 * Time allowed to one attempt of a call that writes, ms: a create or an update whose answer is late
 * has most likely been carried out, and another try would make a second log or land a second
 * write, so it is waited for four times as long as a read.
 */
export const defaultWriteTimeoutMs = 60_000;

/** The updates that get the write deadline besides every call of the `create` class. */
const slowUpdates: ReadonlySet<OperationName> = new Set(['updateMessageLog', 'modifyMessage', 'finalizeContent']);

/** Whether `operation` writes: its attempts get the write deadline. */
export function isWrite(operation: OperationName): boolean {
	return retryClasses[operation] === 'create' || slowUpdates.has(operation);
}

export type PlatformClientOptions = {
	baseUrl: string;
	apiKey: string | KeySupplier;
	appId: string;
	/** Defaults for calls that do not name a user/company (the receiver passes the event's ids). */
	userId?: string;
	companyId?: string;
	/** Retries after the first attempt for transient failures. Default 3. */
	retries?: number;
	/**
	 * Base of the exponential backoff, ms. Default 500 (0.5 s × 2ⁿ, capped at 8 s); the suite's
	 * shorter base is passed in by whoever makes the client (config/test-timers.ts, clientRetryBase).
	 */
	retryBaseMs?: number;
	/** Cap of one backoff wait, ms. Default 8000. */
	retryCapMs?: number;
	/** Longest `Retry-After` honoured, seconds. Default 60. */
	maxRetryAfterSeconds?: number;
	/** Time allowed to one attempt, ms. Default 15 000 (JSON calls); a blob PUT's base, default 60 000. */
	timeoutMs?: number;
	/** Time allowed to one attempt of a call that writes (isWrite), ms. Default 60 000, never less than `timeoutMs`. */
	writeTimeoutMs?: number;
	/** Time allowed to an operation's attempts and waits together, ms. Default 45 000, never less than one attempt's. */
	totalTimeoutMs?: number;
	/** Connect timeout, ms. Default 10 000. */
	connectTimeoutMs?: number;
	userAgent?: string;
	onRequest?: (entry: RequestLogEntry) => void;
	/** Paces the attempts of every call (serve's --platform-rate) and shares a 429's wait. */
	pacer?: Pacer;
	/** Times attempts, backoff waits and totals. Default: the monotonic clock (a test passes a `ManualClock`). */
	clock?: Clock;
};

export type CallOptions = {
	userId?: string;
	companyId?: string;
	signal?: AbortSignal;
	/** Time allowed to one attempt, ms. */
	timeoutMs?: number;
	/** Time allowed to all attempts together, ms. */
	totalTimeoutMs?: number;
	/** Retries for this call instead of the client's (0: one attempt only). */
	retries?: number;
	/**
	 * Once sent, never sent again: the call is retried only where the platform provably did not
	 * process it (the `create` class's rule), whatever its operation's class.
	 */
	sentOnce?: boolean;
};

/** What the request modules share: one per client. */
export type ClientContext = {
	options: PlatformClientOptions;
	/** The backoff's base, ms (retryBaseFor). */
	retryBaseMs: number;
	/** The base URL without trailing slashes. */
	baseUrl: string;
	keySupplier: KeySupplier;
	transport: Transport;
	log: RequestLog;
};

/** The client's backoff base: as given, else 0.5 s. Read once, when the client is made. */
export function retryBaseFor(options: PlatformClientOptions): number {
	return options.retryBaseMs ?? 500;
}

export function attemptPlan(context: ClientContext, operation: OperationName, method: string, path: string, call: CallOptions = {}): AttemptPlan {
	const {options} = context;
	const readMs = options.timeoutMs ?? defaultAttemptTimeoutMs;
	const attemptTimeoutMs = call.timeoutMs ?? (isWrite(operation) ? Math.max(options.writeTimeoutMs ?? defaultWriteTimeoutMs, readMs) : readMs);
	const retryClass: RetryClass = call.sentOnce === true ? 'create' : retryClasses[operation];
	return {
		operation,
		retryClass,
		method,
		path,
		target: new URL(context.baseUrl).host,
		retries: call.retries ?? options.retries ?? 3,
		attemptTimeoutMs,
		totalTimeoutMs: call.totalTimeoutMs ?? Math.max(options.totalTimeoutMs ?? defaultTotalTimeoutMs, attemptTimeoutMs),
		signal: call.signal,
		timing: {
			baseMs: context.retryBaseMs,
			capMs: options.retryCapMs ?? 8000,
			maxRetryAfterSeconds: options.maxRetryAfterSeconds ?? 60,
			random: Math.random,
		},
		log: context.log,
		pacer: options.pacer,
		clock: options.clock ?? monotonicClock,
	};
}
