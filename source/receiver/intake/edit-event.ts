/**
 * An edited copy of a stored event, to store as a new event and process (`events replay --edit`,
 * `--set`, the inspector's `e`): the body read as JSON, changed by each `--set`, given a new id
 * and createdAt, and the original named in a header. The edited text is checked before anything
 * is stored: a body that is not a JSON object is refused with the fixture errors `trigger` uses.
 */
import type {NewEvent, StoredEvent} from '../store/backend.js';
import {freshIdentity, parseFixture, setPath} from './fixture.js';
import {editedFromHeader} from '../journal/records/edited.js';

export type FieldChange = {path: string; value: unknown};

function chatOf(body: Record<string, unknown>): string | undefined {
	const payload = body.payload;
	if (typeof payload !== 'object' || payload === null) {
		return undefined;
	}

	const chat = (payload as Record<string, unknown>).chatid ?? (payload as Record<string, unknown>).chatId;
	return typeof chat === 'string' && chat !== '' ? chat : undefined;
}

/** The new event made from `original` with the body `text` (the edited JSON) and `changes` applied. */
export function editedEvent(original: Pick<StoredEvent, 'id' | 'event'>, text: string, changes: readonly FieldChange[], now: Date): NewEvent {
	const source = `the edited body of ${original.id}`;
	const body = parseFixture(text, source);
	for (const change of changes) {
		setPath(body, change.path, change.value, source);
	}

	freshIdentity(body, now);
	const chatId = chatOf(body);
	return {
		id: String(body.id),
		event: typeof body.event === 'string' ? body.event : original.event,
		receivedAt: now.toISOString(),
		body: JSON.stringify(body),
		headers: {[editedFromHeader]: original.id},
		...(chatId ? {chatId} : {}),
		status: 'received',
	};
}

/** The event an edited one was made from, when it is one. */
export function editedFrom(event: Pick<StoredEvent, 'headers'>): string | undefined {
	return event.headers[editedFromHeader];
}
