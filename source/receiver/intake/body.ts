/**
 * A stored body is the delivery's exact bytes: its text when the bytes are valid UTF-8 (a lossless
 * round trip, and readable in Redis and in `events show`), else base64 with `bodyEncoding:
 * 'base64'` beside it. Everything that sends or writes a body again (forward, export) takes
 * `bodyBytes`, so it still matches its signature; everything that reads it (the answer, the
 * screens) takes `bodyText`.
 */
import type {NewEvent} from '../store/backend.js';

type StoredBody = Pick<NewEvent, 'body' | 'bodyEncoding'>;

const bom = '\uFEFF';

/** The exact bytes that were received. */
export function bodyBytes(event: StoredBody): Buffer {
	return Buffer.from(event.body, event.bodyEncoding === 'base64' ? 'base64' : 'utf8');
}

/** The body as text to read it: bytes that are not UTF-8 decode to U+FFFD; a leading byte-order mark is left out. */
export function bodyText(event: StoredBody): string {
	const text = event.bodyEncoding === 'base64' ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
	return text.startsWith(bom) ? text.slice(1) : text;
}
