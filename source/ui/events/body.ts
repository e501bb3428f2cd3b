/**
 * An event's body as text to read: the JSON it holds indented, anything else as it is. Kept apart
 * from format.ts (tables and their width measuring) so `serve`, which shows bodies only in
 * `e` (edit and replay), loads nothing of the tables.
 */
import type {StoredEvent} from '../../receiver/store/backend.js';
import {bodyText} from '../../receiver/intake/body.js';

/** The JSON value a body holds, or undefined when it is not JSON. */
export function parsedBody(body: string): {value: unknown} | undefined {
	try {
		return {value: JSON.parse(body) as unknown};
	} catch {
		return undefined;
	}
}

/** A JSON body indented by two spaces; anything else as it is (bytes that are not UTF-8 as U+FFFD). */
export function prettyBody(event: Pick<StoredEvent, 'body' | 'bodyEncoding'>): string {
	const text = bodyText(event);
	const parsed = parsedBody(text);
	return parsed ? JSON.stringify(parsed.value, null, 2) : text;
}
