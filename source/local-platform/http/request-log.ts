import type {IncomingMessage, ServerResponse} from 'node:http';
import {performance} from 'node:perf_hooks';
import {isoNow, type PlatformClock} from '../clock.js';
import {remember} from '../context.js';
import {newToken} from '../ids.js';
import type {LocalPlatformEvent, RequestRecord} from '../types.js';

/** Request bodies up to this size are kept in the request log. */
const maxLoggedBodyBytes = 64 * 1024;

function flattenHeaders(request: IncomingMessage): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [name, value] of Object.entries(request.headers)) {
		if (value !== undefined) {
			out[name] = Array.isArray(value) ? value.join(', ') : value;
		}
	}

	return out;
}

/** The ring buffer of requests as received (for inspection) and the `request` log events. */
export class RequestLog {
	readonly records: RequestRecord[] = [];

	constructor(
		private readonly clock: PlatformClock,
		private readonly max: number,
		private readonly emit: (event: LocalPlatformEvent) => void,
	) {}

	/** Starts the record of one request; it is completed (status, duration) and logged when the answer closes. */
	open(request: IncomingMessage, response: ServerResponse, url: URL, method: string): RequestRecord {
		const started = performance.now();
		const record: RequestRecord = {
			requestId: `req_${newToken(24)}`,
			at: isoNow(this.clock),
			method,
			path: url.pathname,
			query: Object.fromEntries(url.searchParams),
			headers: flattenHeaders(request),
			body: undefined,
			status: 0,
			durationMs: 0,
		};
		response.setHeader('request-id', record.requestId);
		if (url.pathname === '/health') {
			return record;
		}

		remember(this.records, record, this.max);
		response.once('close', () => {
			record.status = response.statusCode;
			record.durationMs = Math.round(performance.now() - started);
			this.emit({
				type: 'request',
				at: record.at,
				requestId: record.requestId,
				method,
				path: record.path,
				status: record.status,
				durationMs: record.durationMs,
				...(record.fault === undefined ? {} : {fault: record.fault}),
			});
		});
		return record;
	}

	/** Keeps the parsed body, unless it is large (so that the log stays small). */
	keepBody(record: RequestRecord, body: {value: unknown; bytes: number}): void {
		record.body = body.bytes <= maxLoggedBodyBytes ? body.value : `[${body.bytes} bytes not kept]`;
	}
}
