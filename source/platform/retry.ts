/**
 * When a failed platform call is tried again: one retry class per operation, in one table.
 *
 * - `idempotent`: reads, searches, the chat completion (it stores nothing) and updates that set a
 *   value (PATCH, the finalizing upsert, the blob PUT, DELETE): sending one twice leaves the same
 *   state, so they retry on 408/409/429/5xx, on connection resets and on attempt timeouts.
 * - `create`: calls that make something new (a chat, a space message, a message log, the first
 *   content upsert, a new key). Sending one twice can make two, so they retry only where the
 *   platform provably did not process the first: the connection was refused before anything was
 *   sent, it broke (a reset) before the request's last byte was handed to the operating system
 *   (the platform never got it whole), 429, or 503 with Retry-After. A 502, a reset or a timeout
 *   after the whole request was sent fails at once.
 */
import {PlatformApiError, PlatformConnectionError, type PlatformError, PlatformTimeoutError} from './errors.js';

export type RetryClass = 'idempotent' | 'create';

/** Every operation of the client and its retry class. The readme shows this table. */
export const retryClasses = {
	rotateKey: 'create',
	createChat: 'create',
	getSpace: 'idempotent',
	createSpaceMessage: 'create',
	getLatestMessage: 'idempotent',
	getChatMessages: 'idempotent',
	getMessage: 'idempotent',
	listMessages: 'idempotent',
	listModels: 'idempotent',
	deleteChat: 'idempotent',
	createContent: 'create',
	finalizeContent: 'idempotent',
	putBlob: 'idempotent',
	searchContent: 'idempotent',
	deleteContent: 'idempotent',
	search: 'idempotent',
	chatCompletion: 'idempotent',
	createMessageLog: 'create',
	updateMessageLog: 'idempotent',
	modifyMessage: 'idempotent',
} as const satisfies Record<string, RetryClass>;

export type OperationName = keyof typeof retryClasses;

/** Connection breaks worth another try for an idempotent call (a TLS or protocol error is not). */
const resetCodes = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

const isTransientStatus = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;

export type RetryTiming = {
	/** Base of the exponential backoff, ms (0.5 s × 2ⁿ by default). */
	baseMs: number;
	/** Cap of one backoff wait, ms. */
	capMs: number;
	/** Longest Retry-After honoured, s. */
	maxRetryAfterSeconds: number;
	/** A number in [0, 1) for the jitter (Math.random in the client, fixed in tests). */
	random: () => number;
};

/** The wait before the next attempt, or undefined when the failure is final for this class. */
export function retryDelay(failure: PlatformError, retryClass: RetryClass, attempt: number, timing: RetryTiming): number | undefined {
	const backoff = Math.min(timing.capMs, timing.baseMs * (2 ** (attempt - 1)));
	// Jitter on the upper half keeps retries spread without ever waiting less than half.
	const jittered = (backoff / 2) + (timing.random() * backoff / 2);
	if (failure instanceof PlatformApiError) {
		const retryAfter = failure.retryAfterSeconds;
		const honoured = retryAfter === undefined ? undefined : Math.min(retryAfter, timing.maxRetryAfterSeconds) * 1000;
		if (retryClass === 'create') {
			if (failure.status === 429) {
				return honoured ?? jittered;
			}

			return failure.status === 503 && honoured !== undefined ? honoured : undefined;
		}

		return isTransientStatus(failure.status) ? honoured ?? jittered : undefined;
	}

	if (failure instanceof PlatformConnectionError) {
		if (failure.notSent) {
			return jittered;
		}

		const broken = failure.systemCode === undefined || resetCodes.has(failure.systemCode);
		return retryClass === 'idempotent' && broken ? jittered : undefined;
	}

	if (failure instanceof PlatformTimeoutError) {
		return retryClass === 'idempotent' ? jittered : undefined;
	}

	return undefined;
}
