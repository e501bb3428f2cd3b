/** Small helpers for reading the platform's HTTP answers. */
import {mask} from '../format/secret.js';

/** A body read as JSON: `json` false when it is not JSON; an empty body reads as `null`. */
export function parseJsonBody(text: string): {json: boolean; empty: boolean; value: unknown} {
	if (text.trim() === '') {
		return {json: true, empty: true, value: null};
	}

	try {
		return {json: true, empty: false, value: JSON.parse(text) as unknown};
	} catch {
		return {json: false, empty: false, value: undefined};
	}
}

export function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
	const value = headers[name];
	return Array.isArray(value) ? value[0] : value;
}

/** Retry-After as seconds (delta-seconds or an HTTP date), or undefined. */
export function parseRetryAfter(value: string | undefined): number | undefined {
	if (!value) {
		return undefined;
	}

	if (/^\d+(\.\d+)?$/.test(value.trim())) {
		return Number(value.trim());
	}

	const date = Date.parse(value);
	if (Number.isNaN(date)) {
		return undefined;
	}

	return Math.max(0, (date - Date.now()) / 1000);
}

/** Never let a key leak through an echoed error message. */
export function redact(message: string, key: string): string {
	return key && key.length >= 8 ? message.split(key).join(mask(key)) : message;
}
