import type {IncomingMessage} from 'node:http';
import type {PlatformClock} from './clock.js';
import {HttpError} from './http/http.js';
import type {LocalPlatformEvent, LocalPlatformLimits} from './types.js';

/** Who a call is made by: the key it used and the user and company it acts for. */
export type Caller = {userId: string; companyId: string; apiKey: string};

/** What the parts of the local platform share with each other. */
export type ServiceContext = {
	readonly limits: LocalPlatformLimits;
	/** Aborted when the platform closes; pending work stops. */
	readonly signal: AbortSignal;
	readonly clock: PlatformClock;
	baseUrl(): string;
	emit(event: LocalPlatformEvent): void;
	/** Keeps a background task so that close() can wait for it. */
	track(promise: Promise<unknown>): void;
};

export function quotaExceeded(what: string, limit: number): HttpError {
	return new HttpError(403, 'QUOTA_EXCEEDED', `The local platform keeps at most ${limit} ${what}`);
}

export function headerValue(request: IncomingMessage, name: string): string | undefined {
	const value = request.headers[name];
	const text = Array.isArray(value) ? value[0] : value;
	return text === undefined || text.trim() === '' ? undefined : text.trim();
}

/** Appends to a ring buffer of at most `max` entries. */
export function remember<T>(list: T[], entry: T, max: number): void {
	list.push(entry);
	if (list.length > max) {
		list.splice(0, list.length - max);
	}
}
