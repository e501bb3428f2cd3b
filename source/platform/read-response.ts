/**
 * Reads one HTTP answer (API or blob) the same way: its status, request id and body, and the
 * `PlatformApiError` a status outside 2xx stands for, with the platform's own message.
 */
import {PlatformApiError, platformMessageFrom} from './errors.js';
import {headerValue, parseJsonBody, parseRetryAfter, redact} from './http.js';
import type {OperationName} from './retry.js';
import type {TransportResponse} from './transport.js';

export type ReadResponse = {
	status: number;
	requestId: string | undefined;
	parsed: ReturnType<typeof parseJsonBody>;
	/** Set when the status is not 2xx. */
	error?: PlatformApiError;
};

/**
 * `requestIdHeaders`: the headers that may carry the request id, first found wins.
 * `key`: the key sent, masked wherever the platform's message echoes it.
 */
export function readResponse(
	where: {operation: OperationName; method: string; path: string},
	response: TransportResponse,
	requestIdHeaders: readonly string[],
	key?: string,
): ReadResponse {
	const {text, statusCode: status} = response;
	let requestId: string | undefined;
	for (const name of requestIdHeaders) {
		requestId ??= headerValue(response.headers, name);
	}

	const parsed = parseJsonBody(text);
	if (status >= 200 && status < 300) {
		return {status, requestId, parsed};
	}

	const message = platformMessageFrom(parsed.value, text.trim().slice(0, 200) || `HTTP ${status}`);
	const error = new PlatformApiError({
		...where,
		status,
		platformMessage: key === undefined ? message : redact(message, key),
		requestId,
		retryAfterSeconds: parseRetryAfter(headerValue(response.headers, 'retry-after')),
	});
	return {status, requestId, parsed, error};
}
