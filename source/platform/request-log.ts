/**
 * The per-attempt request log (`onRequest`, shown by the debug output): each entry is cut down to
 * the fields that carry a value, with the duration rounded to whole milliseconds.
 */
import type {RequestLogEntry} from './attempts.js';

/** An entry as the request code writes it: status and request id may be missing. */
export type RequestLogDraft = Omit<RequestLogEntry, 'status' | 'requestId'> & {status?: number; requestId?: string | undefined};

export type RequestLog = (entry: RequestLogDraft) => void;

/** A log that hands clean entries to `options.onRequest` (read at each entry), or does nothing without one. */
export function requestLogger(options: {onRequest?: (entry: RequestLogEntry) => void}): RequestLog {
	return entry => {
		const {onRequest} = options;
		if (!onRequest) {
			return;
		}

		const clean: RequestLogEntry = {method: entry.method, path: entry.path, attempt: entry.attempt, durationMs: Math.round(entry.durationMs)};
		if (entry.status !== undefined) {
			clean.status = entry.status;
		}

		if (entry.requestId) {
			clean.requestId = entry.requestId;
		}

		if (entry.error) {
			clean.error = entry.error;
		}

		if (entry.key) {
			clean.key = entry.key;
		}

		if (entry.retryInMs !== undefined) {
			clean.retryInMs = entry.retryInMs;
		}

		if (entry.reason) {
			clean.reason = entry.reason;
		}

		onRequest(clean);
	};
}
