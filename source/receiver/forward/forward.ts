/**
 * `serve --forward-to URL`: instead of the built-in answer, each stored event is POSTed to the
 * developer's own handler with its original body and the platform's headers, signed again with the
 * endpoint secret (Created-At now, so the handler's tolerance check passes on a late retry). A
 * non-2xx or a timeout is retried with exponential backoff and jitter; then, with a retry schedule
 * (serve), a transient failure (no connection, timeout, 408, 429, 5xx) ends the attempt waiting
 * and the event is forwarded again when its next attempt is due, until the answer deadline; any
 * other 4xx fails the event at once.
 *
 * Each forward carries the event id as `webhook-id` (Standard Webhooks) beside the platform's own
 * headers, so a handler can drop a copy it has seen. A handler slower than the attempt timeout is
 * not sent a second copy while the first is still open: the request stays open until it answers
 * or closes, and is given up only after the time every attempt together would have had
 * (`openLimitMs`).
 *
 * Steps (stored like the answer's, so a resumed job goes on from them):
 * - `forward-failed` {attempt, status?} (error): one attempt that got no 2xx;
 * - `forwarded` {attempt, status}: the handler answered 2xx. A job that finds this step ends at
 *   once: a forward that got a 2xx is never sent again, even after a crash.
 */
import {errorMessage, isRecord} from '../../format/value.js';
import {signWebhookBody, webhookHeaders} from '../../platform/webhook-signature.js';
import {createTransport, type Transport} from '../../platform/transport.js';
import {parseRetryAfter} from '../../platform/http.js';
import {userAgent} from '../../version.js';
import type {JobHandle, JobHandler, JobResult, StepRecord, StoredEvent} from '../store/backend.js';
import {bodyBytes, bodyText} from '../intake/body.js';
import type {ForwardAttempt} from '../events.js';
import {isTransientStatus, retryDelay, waitsOf, waitStep, type RetrySchedule} from '../answer/retry-schedule.js';
import {monotonicClock, timeoutSignal, type Clock} from '../../platform/clock.js';
import {isoMs} from '../clock.js';

export const forwardSteps = {failed: 'forward-failed', forwarded: 'forwarded'} as const;

export type ForwardOptions = {
	/** The handler's URL (http or https). */
	url: string;
	/** The endpoint secret the body is signed with again (the first configured one). */
	secret: string;
	/** Retries after the first attempt. Default 5. */
	retries?: number;
	/** Base of the backoff, ms (× 2ⁿ, with jitter). Default 500. */
	baseMs?: number;
	/** Cap of one backoff wait, ms. Default 30 000. */
	capMs?: number;
	/** Time allowed to connect, ms; an attempt's request may stay open longer (`openLimitMs`). Default 10 000. */
	timeoutMs?: number;
	/** Longest a forward's request stays open before it is given up, ms. Default timeoutMs × (retries + 1). */
	openLimitMs?: number;
	/** A number in [0, 1) for the jitter. */
	random?: () => number;
	/** Durable retries after the in-process ones (serve): bounded by its answer deadline from the event's arrival. */
	schedule?: RetrySchedule;
	/** Each attempt as it ends (the screen's status code and time, the retry counter). */
	onAttempt?: (event: StoredEvent, attempt: ForwardAttempt) => void;
	/** Times the open limit, the backoff waits and each attempt. Default: the monotonic clock (a test passes a `ManualClock`). */
	clock?: Clock;
};

export type Forwarder = {handler: JobHandler; close(): Promise<void>};

/** The headers the handler gets: the platform's, from the stored delivery and body, signed now. */
export function forwardHeaders(event: Pick<StoredEvent, 'id' | 'body' | 'bodyEncoding' | 'headers'>, secret: string, nowSeconds: number, bytes = bodyBytes(event)): Record<string, string> {
	const headers: Record<string, string> = {
		'content-type': 'application/json',
		'user-agent': event.headers['user-agent'] ?? userAgent,
		[webhookHeaders.id]: event.headers[webhookHeaders.id] ?? event.id,
		// Standard Webhooks' idempotency key: the same for every copy of this event.
		'webhook-id': event.id,
		[webhookHeaders.signature]: signWebhookBody(bytes, secret),
		[webhookHeaders.createdAt]: String(nowSeconds),
	};
	let body: unknown;
	try {
		body = JSON.parse(bodyText(event)) as unknown;
	} catch {
		body = undefined;
	}

	if (isRecord(body)) {
		for (const [header, field] of [[webhookHeaders.version, 'version'], [webhookHeaders.userId, 'userId'], [webhookHeaders.companyId, 'companyId']] as const) {
			const value = body[field];
			if (typeof value === 'string') {
				headers[header] = value;
			}
		}
	}

	return headers;
}

/** Whether recorded steps show a forward that got its 2xx. */
export function forwardedStep(steps: readonly StepRecord[]): StepRecord | undefined {
	return steps.find(step => step.name === forwardSteps.forwarded);
}

/** The wait before retry `attempt` (1-based): base × 2^(attempt−1), capped, jittered on the upper half. */
export function forwardBackoff(attempt: number, options: {baseMs: number; capMs: number; random: () => number}): number {
	const backoff = Math.min(options.capMs, options.baseMs * (2 ** (attempt - 1)));
	return (backoff / 2) + (options.random() * backoff / 2);
}

/** How long one forward's request may stay open: while it is, no second copy is sent. */
function openLimit(options: ForwardOptions): number {
	return options.openLimitMs ?? (options.timeoutMs ?? 10_000) * ((options.retries ?? 5) + 1);
}

async function attemptOnce(transport: Transport, url: URL, event: StoredEvent, options: ForwardOptions, signal: AbortSignal): Promise<{status?: number; error?: string; retryAfterMs?: number}> {
	// Not aborted at the attempt timeout: a slow handler still holds this copy, and a second one
	// sent meanwhile would be a duplicate. Given up only past the open limit.
	const limitMs = openLimit(options);
	const timeout = timeoutSignal(options.clock ?? monotonicClock, limitMs);
	try {
		// The exact bytes received, so the handler can check them against the signature as the platform made it.
		const bytes = bodyBytes(event);
		const response = await transport.request(url, {method: 'POST', headers: forwardHeaders(event, options.secret, Math.floor(Date.now() / 1000), bytes), body: bytes, signal: AbortSignal.any([signal, timeout.signal])});
		const retryAfter = parseRetryAfter(typeof response.headers['retry-after'] === 'string' ? response.headers['retry-after'] : undefined);
		return {status: response.statusCode, ...(retryAfter === undefined ? {} : {retryAfterMs: retryAfter * 1000})};
	} catch (error) {
		return {error: timeout.signal.aborted ? `no answer within ${limitMs} ms (the request was kept open that long)` : errorMessage(error)};
	} finally {
		timeout.clear();
	}
}

/** The wait before the next attempt when the handler's failure is transient and the deadline allows one, else undefined. */
async function waitForHandler(job: JobHandle, options: ForwardOptions, reason: string, retryAfterMs: number | undefined): Promise<JobResult | undefined> {
	const {schedule} = options;
	if (schedule === undefined) {
		return undefined;
	}

	const received = isoMs(job.event.receivedAt);
	const leftMs = (Number.isNaN(received) ? schedule.now() : received) + schedule.answerDeadlineMs - schedule.now();
	if (leftMs <= 0) {
		return undefined;
	}

	const {tries} = waitsOf(job.event.steps);
	const step = waitStep(schedule, {delayMs: Math.min(retryDelay(schedule, tries, retryAfterMs), leftMs), tries: tries + 1, phase: 'forward', reason});
	await job.recordStep(step);
	return {status: 'waiting', nextAttemptAt: String(step.data?.until), error: reason};
}

async function forwardEvent(transport: Transport, url: URL, job: JobHandle, options: ForwardOptions): Promise<JobResult> {
	const {event, signal, recordStep} = job;
	if (forwardedStep(event.steps)) {
		return {status: 'answered'};
	}

	const clock = options.clock ?? monotonicClock;
	const retries = options.retries ?? 5;
	const timing = {baseMs: options.baseMs ?? 500, capMs: options.capMs ?? 30_000, random: options.random ?? Math.random};
	// Attempts recorded by an earlier run count against the retries (a waiting event's count afresh).
	const previous = event.steps.filter(step => step.name === forwardSteps.failed).length;
	const waits = waitsOf(event.steps).tries;
	let attempt = previous;
	const limit = waits > 0 ? previous + retries : retries;
	let last = 'no attempt made';
	let transient = true;
	let retryAfterMs: number | undefined;
	while (attempt <= limit) {
		attempt++;
		signal.throwIfAborted();
		const started = clock.now();
		const result = await attemptOnce(transport, url, event, options, signal);
		const ms = Math.round(clock.now() - started);
		const ok = result.status !== undefined && result.status >= 200 && result.status < 300;
		if (ok) {
			await recordStep({name: forwardSteps.forwarded, at: new Date().toISOString(), data: {attempt, status: result.status}});
			options.onAttempt?.(event, {attempt, status: result.status, ms});
			return {status: 'answered'};
		}

		signal.throwIfAborted();
		last = result.status === undefined ? result.error ?? 'no answer' : `the handler answered ${result.status}`;
		transient = result.status === undefined || isTransientStatus(result.status);
		retryAfterMs = result.retryAfterMs;
		await recordStep({name: forwardSteps.failed, at: new Date().toISOString(), data: result.status === undefined ? {attempt} : {attempt, status: result.status}, error: last});
		// Another 4xx is the handler's refusal: it is not sent again.
		const retryInMs = attempt <= limit && transient ? Math.round(forwardBackoff(attempt - previous, timing)) : undefined;
		options.onAttempt?.(event, {attempt, ms, ...(result.status === undefined ? {error: last} : {status: result.status}), ...(retryInMs === undefined ? {} : {retryInMs})});
		if (retryInMs === undefined) {
			break;
		}

		await clock.sleep(retryInMs, signal);
		signal.throwIfAborted();
	}

	const waiting = transient ? await waitForHandler(job, options, `forwarding to ${options.url}: ${last}`, retryAfterMs) : undefined;
	return waiting ?? {status: 'failed', error: `forwarding to ${options.url} failed after ${attempt} attempts: ${last}`};
}

/** The job handler that forwards stored events, with its own keep-alive connections. */
export function createForwarder(options: ForwardOptions): Forwarder {
	const transport = createTransport({connectTimeoutMs: options.timeoutMs ?? 10_000});
	const url = new URL(options.url);
	return {
		handler: async job => forwardEvent(transport, url, job, options),
		close: async () => transport.close(),
	};
}
