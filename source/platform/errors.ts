/**
 * Errors raised by the platform client. Each is a `CoreError` with a stable code and the data the
 * CLI layer words it from (`source/commands/messages/platform.ts`). None of their messages ever
 * contains a key, and none carries CLI wording.
 */
import {CoreError} from '../core-error.js';
import {formatSeconds} from '../format/duration.js';
import {errorCode as ownCode, isRecord} from '../format/value.js';

/** Every code the platform client raises. */
export const platformErrorCodes = {
	/** HTTP 401: the key was refused. */
	unauthorized: 'platform-unauthorized',
	/** HTTP 403: the key may not do this (app id, user, company). */
	forbidden: 'platform-forbidden',
	/** HTTP 404: the id named in the path does not exist (or belongs to someone else). */
	notFound: 'platform-not-found',
	/** HTTP 429. */
	rateLimited: 'platform-rate-limited',
	/** HTTP 5xx. */
	unavailable: 'platform-unavailable',
	/** Any other non-2xx. */
	rejected: 'platform-rejected',
	/** The connection failed before the request was sent (refused, DNS, connect timeout). */
	refused: 'platform-connection-refused',
	/** The connection broke after the request may have been sent (reset, closed socket). */
	connectionLost: 'platform-connection-lost',
	/** No answer within the time allowed (all attempts together). */
	noAnswer: 'platform-no-answer',
	/** A 2xx whose body is not the documented shape. */
	malformedResponse: 'platform-malformed-response',
} as const;

export type PlatformErrorCode = typeof platformErrorCodes[keyof typeof platformErrorCodes];

/** What every platform error carries: which call, how it ended, and how long it was tried. */
export type PlatformErrorData = {
	/** The client operation (`createChat`, `getSpace`, …; see `retryClasses`). */
	operation: string;
	method: string;
	/** Path (API) or host and path (blob); never the query of a pre-signed address. */
	path: string;
	status?: number | undefined;
	requestId?: string | undefined;
	/** Attempts made, the failing one included. */
	attempts: number;
	/** Time from the first attempt to the failure, ms. */
	elapsedMs: number;
	[key: string]: unknown;
};

type Where = {operation?: string | undefined; method: string; path: string};

function baseData(where: Where): PlatformErrorData {
	return {operation: where.operation ?? `${where.method} ${where.path}`, method: where.method, path: where.path, attempts: 1, elapsedMs: 0};
}

/**
 * The base of the client's errors. `code` is typed as a plain string so that code written before
 * the codes existed still compiles; its values are always one of `platformErrorCodes`.
 */
export class PlatformError extends CoreError<string, PlatformErrorData> {
	get operation(): string {
		return this.data.operation;
	}

	get method(): string {
		return this.data.method;
	}

	get path(): string {
		return this.data.path;
	}

	get requestId(): string | undefined {
		return this.data.requestId;
	}

	get attempts(): number {
		return this.data.attempts;
	}

	get elapsedMs(): number {
		return this.data.elapsedMs;
	}

	/** Records how many attempts were made, over how long; called once the retries are over. */
	settle(attempts: number, elapsedMs: number): this {
		this.data.attempts = attempts;
		this.data.elapsedMs = Math.round(elapsedMs);
		return this;
	}
}

function codeForStatus(status: number): PlatformErrorCode {
	if (status === 401) {
		return platformErrorCodes.unauthorized;
	}

	if (status === 403) {
		return platformErrorCodes.forbidden;
	}

	if (status === 404) {
		return platformErrorCodes.notFound;
	}

	if (status === 429) {
		return platformErrorCodes.rateLimited;
	}

	return status >= 500 ? platformErrorCodes.unavailable : platformErrorCodes.rejected;
}

/** The platform answered with a non-2xx status. */
export class PlatformApiError extends PlatformError {
	readonly status: number;
	readonly platformMessage: string;
	readonly retryAfterSeconds: number | undefined;

	constructor(options: Where & {
		status: number;
		platformMessage: string;
		requestId?: string | undefined;
		retryAfterSeconds?: number | undefined;
	}) {
		const requestPart = options.requestId ? ` (request id ${options.requestId})` : '';
		super(
			codeForStatus(options.status),
			{...baseData(options), status: options.status, requestId: options.requestId, platformMessage: options.platformMessage},
			`${options.method} ${options.path} failed with HTTP ${options.status}: ${options.platformMessage}${requestPart}`,
		);
		this.status = options.status;
		this.platformMessage = options.platformMessage;
		this.retryAfterSeconds = options.retryAfterSeconds;
	}
}

/** The code of a connection not opened in time (the client's transport): nothing was sent. */
export const connectTimeoutCode = 'CONNECT_TIMEOUT';

/** Connect-phase failures: the request provably never left this machine. */
const refusedCodes = new Set(['ECONNREFUSED', connectTimeoutCode, 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/** The platform could not be reached (refused, reset, DNS, TLS …). */
export class PlatformConnectionError extends PlatformError {
	/** The system code (`ECONNREFUSED`, `ECONNRESET`, …), when known. */
	readonly systemCode: string | undefined;
	readonly target: string;
	/** True when the connection failed before anything was sent, so the call was not processed. */
	readonly refused: boolean;
	/**
	 * True when the platform provably did not get the whole request: refused, or the connection
	 * broke (a reset) before the request's last byte was handed to the operating system. A server
	 * does not process a request it has not received whole, so even a create may be sent again.
	 */
	readonly notSent: boolean;

	constructor(options: Where & {target: string; code?: string | undefined; cause?: unknown; notSent?: boolean}) {
		const refused = options.code !== undefined && refusedCodes.has(options.code);
		const codePart = options.code ? ` (${options.code})` : '';
		super(
			refused ? platformErrorCodes.refused : platformErrorCodes.connectionLost,
			{...baseData(options), target: options.target, systemCode: options.code},
			`${options.method} ${options.path} could not reach ${options.target}${codePart}`,
			{cause: options.cause},
		);
		this.systemCode = options.code;
		this.target = options.target;
		this.refused = refused;
		this.notSent = refused || options.notSent === true;
	}
}

/** No answer in the time allowed: one attempt's timeout, or the whole operation's. */
export class PlatformTimeoutError extends PlatformError {
	/** The time allowed to the attempt that ran out. */
	readonly timeoutMs: number;

	constructor(options: Where & {timeoutMs: number; attempts?: number; elapsedMs?: number}) {
		const attempts = options.attempts ?? 1;
		const elapsedMs = Math.round(options.elapsedMs ?? options.timeoutMs);
		super(
			platformErrorCodes.noAnswer,
			{...baseData(options), attempts, elapsedMs, timeoutMs: options.timeoutMs},
			noAnswerMessage(options.method, options.path, attempts, elapsedMs),
		);
		this.timeoutMs = options.timeoutMs;
	}

	override settle(attempts: number, elapsedMs: number): this {
		super.settle(attempts, elapsedMs);
		this.message = noAnswerMessage(this.method, this.path, attempts, this.data.elapsedMs);
		return this;
	}
}

function noAnswerMessage(method: string, path: string, attempts: number, elapsedMs: number): string {
	return `${method} ${path}: no answer after ${attempts} ${attempts === 1 ? 'attempt' : 'attempts'} over ${formatSeconds(elapsedMs)}`;
}

/** The platform answered 2xx with a body that is not the documented shape. */
export class PlatformResponseError extends PlatformError {
	/** The first field that is wrong (`id`, `choices[0].message.content`), or `(body)` for the whole answer. */
	readonly field: string;
	readonly detail: string;
	readonly status: number | undefined;

	constructor(options: Where & {detail: string; field?: string; requestId?: string | undefined; status?: number | undefined}) {
		const requestPart = options.requestId ? ` (request id ${options.requestId})` : '';
		const field = options.field ?? '(body)';
		super(
			platformErrorCodes.malformedResponse,
			{...baseData(options), field, detail: options.detail, status: options.status, requestId: options.requestId},
			`${options.method} ${options.path} returned an unexpected answer: ${options.detail}${requestPart}`,
		);
		this.field = field;
		this.detail = options.detail;
		this.status = options.status;
	}
}

/** Extracts the platform's error message: `error` when a string, else `error.message`, else `message`. */
export function platformMessageFrom(body: unknown, fallback: string): string {
	if (isRecord(body)) {
		if (typeof body.error === 'string' && body.error) {
			return body.error;
		}

		if (isRecord(body.error) && typeof body.error.message === 'string' && body.error.message) {
			return body.error.message;
		}

		if (typeof body.message === 'string' && body.message) {
			return body.message;
		}
	}

	return fallback;
}

/** The first `code` (ECONNREFUSED, UND_ERR_SOCKET, …) on an error or its causes. */
export function errorCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth++) {
		const code = ownCode(current);
		if (code !== undefined) {
			return code;
		}

		current = current instanceof Error || isRecord(current) ? (current as {cause?: unknown}).cause : undefined;
	}

	return undefined;
}
