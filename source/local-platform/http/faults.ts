import {LocalPlatformError, invalidOption} from '../errors.js';
import {HttpError} from './http.js';
import {seededRandom} from '../ids.js';

/**
 * What an injected fault does:
 * - `429` / `503`: refused before anything is processed, with Retry-After (a retry is safe);
 * - `500`: refused before anything is processed, without Retry-After (an outage that says nothing);
 * - `perform-502`: the operation is carried out, then 502 is answered (a retry repeats it);
 * - `empty-200`: the operation is carried out, then 200 is answered with the body `null`;
 * - `slow`: the operation is carried out at once, and its answer sent `slowMs` later (default 16 s),
 *   as a platform that writes but answers late (a client that gives up first does not know it wrote);
 * - `drop`: for the event socket (`eventSocket`), the stream is answered 200 and closed at once.
 */
export type FaultKind = '429' | '500' | '503' | 'perform-502' | 'empty-200' | 'slow' | 'drop';

export const faultKinds: readonly FaultKind[] = ['429', '500', '503', 'perform-502', 'empty-200', 'slow', 'drop'];

/** The operation name fault rules give the event socket's stream (it is no API route). */
export const eventSocketOperation = 'eventSocket';

/** How late a `slow` fault answers by default, ms: past a client's 15 s read deadline. */
export const defaultSlowFaultMs = 16_000;

/** A fault for one operation (or `*`, every operation), for the first `times` calls or every call. */
export type FaultRule = {operation: string; kind: FaultKind; times?: number};

/** How an answered request was faulted, as the request log shows it. */
export type InjectedFault = 429 | 500 | 503 | 'perform-502' | 'empty-200' | 'slow' | 'drop';

export type FaultSettings = {
	/** Share (0..1) of API calls answered with 429 or 503 at random. */
	failRate?: number;
	latencyMs?: number;
	/** How late a `slow` fault answers, ms. Default 16 000. */
	slowMs?: number;
	seed?: number;
	faultRetryAfterSeconds?: number;
	/** Replaces the rules in force. */
	rules?: readonly FaultRule[];
};

/**
 * Reads a rule written `OPERATION:KIND[:TIMES]`, e.g. `createMessageLog:perform-502:1` or
 * `*:empty-200`. `operations` are the names a rule may use besides `*`.
 */
export function parseFaultRule(text: string, operations: readonly string[]): FaultRule {
	const [operation = '', kind = '', times, ...rest] = text.trim().split(':');
	const fail = (reason: string): never => {
		throw new LocalPlatformError('local-fault-invalid', {rule: text, reason, operations: [...operations], kinds: [...faultKinds]}, `Fault rule "${text}": ${reason}`);
	};

	if (rest.length > 0 || operation === '' || kind === '') {
		fail('expected OPERATION:KIND or OPERATION:KIND:TIMES');
	}

	if (operation !== '*' && !operations.includes(operation)) {
		fail(`unknown operation "${operation}"`);
	}

	if (!faultKinds.includes(kind as FaultKind)) {
		fail(`unknown fault "${kind}"`);
	}

	const rule: FaultRule = {operation, kind: kind as FaultKind};
	if (times !== undefined) {
		const count = Number(times);
		if (!/^\d+$/.test(times) || count < 1) {
			fail(`times must be a whole number of at least 1, got "${times}"`);
		}

		rule.times = count;
	}

	return rule;
}

function checkRate(value: number): number {
	if (!Number.isFinite(value) || value < 0 || value > 1) {
		throw invalidOption('failRate', value, 'a number from 0 to 1');
	}

	return value;
}

function checkMs(value: number, option: string): number {
	if (!Number.isFinite(value) || value < 0) {
		throw invalidOption(option, value, 'a non-negative number of milliseconds');
	}

	return value;
}

type ActiveRule = FaultRule & {remaining: number};

/** Random and per-operation fault injection, plus the added latency. */
export class FaultInjector {
	latencyMs = 0;
	slowMs = defaultSlowFaultMs;
	private failRate = 0;
	private retryAfterSeconds = 1;
	private random: () => number = Math.random;
	private rules: ActiveRule[] = [];

	constructor(settings: FaultSettings) {
		this.set(settings);
	}

	set(settings: FaultSettings): void {
		if (settings.failRate !== undefined) {
			this.failRate = checkRate(settings.failRate);
		}

		if (settings.latencyMs !== undefined) {
			this.latencyMs = checkMs(settings.latencyMs, 'latencyMs');
		}

		if (settings.slowMs !== undefined) {
			this.slowMs = checkMs(settings.slowMs, 'slowMs');
		}

		if (settings.seed !== undefined) {
			this.random = seededRandom(settings.seed);
		}

		if (settings.faultRetryAfterSeconds !== undefined) {
			this.retryAfterSeconds = Math.max(0, Math.round(settings.faultRetryAfterSeconds));
		}

		if (settings.rules !== undefined) {
			this.rules = settings.rules.map(rule => ({...rule, remaining: rule.times ?? Number.POSITIVE_INFINITY}));
		}
	}

	/**
	 * Answers a share of API calls with 429 or 503 (half each), both with Retry-After, before
	 * anything is authenticated or processed, so a retry is always safe.
	 */
	random429or503(): 429 | 503 | undefined {
		if (this.failRate <= 0 || this.random() >= this.failRate) {
			return undefined;
		}

		return this.random() < 0.5 ? 429 : 503;
	}

	/** The rule fault for one call of `operation`, if any (using up one of its times). */
	take(operation: string): FaultKind | undefined {
		const rule = this.rules.find(entry => entry.remaining > 0 && (entry.operation === operation || entry.operation === '*'));
		if (rule === undefined) {
			return undefined;
		}

		rule.remaining--;
		return rule.kind;
	}

	/** The error a refusing fault is answered with. */
	refusal(status: 429 | 500 | 503): HttpError {
		if (status === 500) {
			return new HttpError(500, 'INTERNAL_SERVER_ERROR', 'Internal server error (injected by the local platform)');
		}

		const headers = {'retry-after': String(this.retryAfterSeconds)};
		return status === 429
			? new HttpError(429, 'TOO_MANY_REQUESTS', 'Rate limit exceeded (injected by the local platform)', headers)
			: new HttpError(503, 'SERVICE_UNAVAILABLE', 'Service temporarily unavailable (injected by the local platform)', headers);
	}
}

/** The answer after an operation that was carried out, under a `perform-502` fault. */
export function performedThen502(operation: string): HttpError {
	return new HttpError(502, 'BAD_GATEWAY', `Bad gateway (injected by the local platform after ${operation} was carried out)`);
}
