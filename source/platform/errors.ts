/** Errors raised by the platform client. None of their messages ever contains a key. */

export class PlatformError extends Error {
	override name = 'PlatformError';
}

/** The platform answered with a non-2xx status. */
export class PlatformApiError extends PlatformError {
	override name = 'PlatformApiError';
	readonly status: number;
	readonly platformMessage: string;
	readonly requestId: string | undefined;
	readonly method: string;
	readonly path: string;
	readonly retryAfterSeconds: number | undefined;

	constructor(options: {
		status: number;
		platformMessage: string;
		requestId?: string | undefined;
		method: string;
		path: string;
		retryAfterSeconds?: number | undefined;
	}) {
		const requestPart = options.requestId ? ` (request id ${options.requestId})` : '';
		super(`${options.method} ${options.path} failed with HTTP ${options.status}: ${options.platformMessage}${requestPart}`);
		this.status = options.status;
		this.platformMessage = options.platformMessage;
		this.requestId = options.requestId;
		this.method = options.method;
		this.path = options.path;
		this.retryAfterSeconds = options.retryAfterSeconds;
	}
}

/** The platform could not be reached (refused, reset, DNS, TLS ...). */
export class PlatformConnectionError extends PlatformError {
	override name = 'PlatformConnectionError';
	readonly method: string;
	readonly path: string;
	readonly code: string | undefined;
	readonly target: string;

	constructor(options: {method: string; path: string; target: string; code?: string | undefined; cause?: unknown}) {
		const codePart = options.code ? ` (${options.code})` : '';
		super(`${options.method} ${options.path} could not reach ${options.target}${codePart}`, {cause: options.cause});
		this.method = options.method;
		this.path = options.path;
		this.code = options.code;
		this.target = options.target;
	}
}

/** The request did not complete in the time allowed. */
export class PlatformTimeoutError extends PlatformError {
	override name = 'PlatformTimeoutError';
	readonly method: string;
	readonly path: string;
	readonly timeoutMs: number;

	constructor(options: {method: string; path: string; timeoutMs: number}) {
		super(`${options.method} ${options.path} timed out after ${(options.timeoutMs / 1000).toFixed(1)} s`);
		this.method = options.method;
		this.path = options.path;
		this.timeoutMs = options.timeoutMs;
	}
}

/** The platform answered 2xx with a body that is not the documented shape. */
export class PlatformResponseError extends PlatformError {
	override name = 'PlatformResponseError';
	readonly method: string;
	readonly path: string;
	readonly requestId: string | undefined;

	constructor(options: {method: string; path: string; detail: string; requestId?: string | undefined}) {
		const requestPart = options.requestId ? ` (request id ${options.requestId})` : '';
		super(`${options.method} ${options.path} returned an unexpected answer: ${options.detail}${requestPart}`);
		this.method = options.method;
		this.path = options.path;
		this.requestId = options.requestId;
	}
}

/** Extracts the platform's error message: `error` when a string, else `error.message`, else `message`. */
export function platformMessageFrom(body: unknown, fallback: string): string {
	if (body && typeof body === 'object') {
		const record = body as Record<string, unknown>;
		if (typeof record.error === 'string' && record.error) {
			return record.error;
		}

		if (record.error && typeof record.error === 'object') {
			const nested = (record.error as Record<string, unknown>).message;
			if (typeof nested === 'string' && nested) {
				return nested;
			}
		}

		if (typeof record.message === 'string' && record.message) {
			return record.message;
		}
	}

	return fallback;
}

/** The first `code` (ECONNREFUSED, UND_ERR_SOCKET, …) on an error or its causes. */
export function errorCode(error: unknown): string | undefined {
	let current: unknown = error;
	for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
		const {code} = current as {code?: unknown};
		if (typeof code === 'string') {
			return code;
		}

		current = (current as {cause?: unknown}).cause;
	}

	return undefined;
}
