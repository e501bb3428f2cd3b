/**
 * How an event is kept in the `events` database: a positional array, tagged with its format.
 *
 * lmdb-js writes an object with its field names inline in every record (it shares no structures
 * here), about 150 bytes of a 765-byte record for a 337-byte body. An array carries none. The
 * common values are shortened too: a known event type is its number, `updatedAt` equal to
 * `receivedAt` and an `x-platform-id` header equal to the id are left out. A record is then about
 * 30 % smaller, which is fewer pages to write and flush in each commit before the 200.
 *
 * Records written as objects by earlier versions are read as they are: `fromStored` takes both.
 * The other way round does not hold: an earlier version reads an array as a record without its
 * fields, so a journal this version has written to is not for earlier versions (docs/serve.md).
 * Absent values are null (msgpack writes one byte for null, three for undefined).
 *
 * Each record ends with a checksum (CRC32, node:zlib) of its key's time and its fields, computed
 * once as it is written and checked at every read: LMDB keeps no checksums of its own, and a byte
 * changed inside a value that still decodes (a letter of a body, a digit of a time) would otherwise
 * be read as the event. A record that fails it is refused with its id (`journal-record-damaged`).
 * Records without one (20 fields, or the objects of earlier versions) read as before, and are
 * checked from their next write on. The checksum is appended, not a new format: a version before
 * it reads the same positions and ignores the last one.
 */
import {crc32} from 'node:zlib';
import type {EventStatus, NewEvent} from '../../store/backend.js';
import {journalError} from '../errors.js';
import type {EventRecord, TimeKey} from './shapes.js';

/** The format tag at index 0. */
const format = 1;

/**
 * Event types kept as their index in this list. The numbers are on disk: append only, and written
 * out here rather than taken from the platform's constants, so no change elsewhere moves them.
 */
const knownTypes: readonly string[] = ['platform.chat.user-message.created', 'platform.chat.external-module.chosen'];

const signatureHeader = 'x-platform-signature';
const createdAtHeader = 'x-platform-created-at';
const idHeader = 'x-platform-id';
const userAgentHeader = 'user-agent';

/** `idHeader` slot when the header equals the event id. */
const sameAsId = 1;

export type EventTuple = [
	format: typeof format,
	id: string,
	event: string | number,
	receivedAt: string,
	body: string,
	bodyEncoding: 'base64' | null,
	signature: string | null,
	createdAt: string | null,
	headerId: string | typeof sameAsId | null,
	userAgent: string | null,
	otherHeaders: Record<string, string> | null,
	chatId: string | null,
	status: EventStatus,
	note: string | null,
	/** Null: the same as receivedAt. */
	updatedAt: string | null,
	finishedAt: string | null,
	durationMs: number | null,
	error: string | null,
	attempts: number,
	generation: number,
	/** CRC32 of the key's time and the fields before it (absent in records written before it). */
	checksum?: number,
];

/** Where the checksum sits: after the 20 fields. */
const checksumAt = 20;

/**
 * The checksum of a tuple under a key time: CRC32 of the time and each field before the checksum,
 * typed (string, number, null, or the other headers' JSON) and separated, so any changed byte that
 * changes what is read changes it. A text of the fields rather than JSON.stringify of the tuple:
 * 1.3 to 1.7 µs for a 700-byte record against 3 to 4 µs (measured on a 2-core machine at load
 * average 13); it runs once per write and once per read.
 */
function checksumOf(ms: number, tuple: readonly unknown[]): number {
	let text = String(ms);
	for (let index = 0; index < checksumAt; index++) {
		const field = tuple[index];
		text += typeof field === 'string' ? `\u0000s${field}` : (typeof field === 'number' ? `\u0000n${field}` : (field === null ? '\u0000z' : `\u0000o${JSON.stringify(field)}`));
	}

	return crc32(text);
}

/** What the `events` database holds: this format, or an object written by an earlier version. */
export type StoredRecord = EventTuple | EventRecord;

function typeCode(type: string): string | number {
	const code = knownTypes.indexOf(type);
	return code === -1 ? type : code;
}

function headerIdSlot(headers: Record<string, string>, id: string): string | typeof sameAsId | null {
	const value = headers[idHeader];
	if (value === undefined) {
		return null;
	}

	return value === id ? sameAsId : value;
}

function otherHeaders(headers: Record<string, string>): Record<string, string> | null {
	let others: Record<string, string> | null = null;
	// for…in, not Object.entries: no array per delivery for the common case of none.
	for (const name in headers) {
		if (name !== signatureHeader && name !== createdAtHeader && name !== idHeader && name !== userAgentHeader && Object.hasOwn(headers, name)) {
			others ??= {};
			others[name] = headers[name] ?? '';
		}
	}

	return others;
}

/**
 * The array of an event's fields and of its processing state (`updatedAt` null: the same as
 * receivedAt), stored under a key of time `ms`. One literal with every slot, the checksum's
 * filled in place: one shape for every record written.
 */
function tupleOf(ms: number, event: Omit<NewEvent, 'status'>, status: EventStatus, updatedAt: string | null, finishedAt: string | null, durationMs: number | null, error: string | null, attempts: number, generation: number): EventTuple {
	const {headers} = event;
	const tuple: EventTuple = [
		format,
		event.id,
		typeCode(event.event),
		event.receivedAt,
		event.body,
		event.bodyEncoding ?? null,
		headers[signatureHeader] ?? null,
		headers[createdAtHeader] ?? null,
		headerIdSlot(headers, event.id),
		headers[userAgentHeader] ?? null,
		otherHeaders(headers),
		event.chatId ?? null,
		status,
		event.note ?? null,
		updatedAt,
		finishedAt,
		durationMs,
		error,
		attempts,
		generation,
		0,
	];
	tuple[checksumAt] = checksumOf(ms, tuple);
	return tuple;
}

/** A record as it is written under `key`. */
export function toTuple(record: EventRecord, key: TimeKey): EventTuple {
	const updatedAt = record.updatedAt === record.receivedAt ? null : record.updatedAt;
	return tupleOf(key[0], record, record.status, updatedAt, record.finishedAt ?? null, record.durationMs ?? null, record.error ?? null, record.attempts, record.generation);
}

/** A newly accepted event as it is written under a key of time `ms` (the hot path: no record object in between). */
export function newEventTuple(event: NewEvent, ms: number): EventTuple {
	return tupleOf(ms, event, event.status, null, null, null, null, 0, 0);
}

/** Whether a stored tuple fails its checksum under `key` (one without a checksum cannot fail it). */
function damaged(value: unknown[], key: TimeKey): boolean {
	if (value.length <= checksumAt) {
		return false;
	}

	return value.length !== checksumAt + 1 || value[1] !== key[1] || value[checksumAt] !== checksumOf(key[0], value);
}

function headersOf(tuple: EventTuple): Record<string, string> {
	const headers: Record<string, string> = {};
	const [, id, , , , , signature, createdAt, headerId, userAgent, others] = tuple;
	if (signature !== null) {
		headers[signatureHeader] = signature;
	}

	if (createdAt !== null) {
		headers[createdAtHeader] = createdAt;
	}

	if (headerId !== null) {
		headers[idHeader] = headerId === sameAsId ? id : headerId;
	}

	if (userAgent !== null) {
		headers[userAgentHeader] = userAgent;
	}

	return others ? Object.assign(headers, others) : headers;
}

const orUndefined = <T>(value: T | null): T | undefined => value ?? undefined;

/**
 * The record of a value stored under `key`, in either format. A value tagged with another format
 * (written by a later version) is refused, never read by position as this one; one that fails its
 * checksum is refused as damaged (`journal-record-damaged`, naming the key's id).
 */
export function fromStored(value: StoredRecord, key: TimeKey): EventRecord {
	if (!Array.isArray(value)) {
		// What is on disk, whatever the type says: a value that decodes to no object is no record.
		const stored: unknown = value;
		if (typeof stored !== 'object' || stored === null) {
			throw recordDamaged(key, 'it is not an event record');
		}

		return value;
	}

	// What is on disk, whatever the type says: a later version may have written another format.
	const tag: unknown = value[0];
	const storedId: unknown = value[1];
	if (tag !== format && typeof tag === 'number' && tag > format) {
		const id = String(storedId);
		throw journalError('journal-record-format', {format: String(tag), id}, `the journal holds event ${id} in record format ${String(tag)}, which this version cannot read`);
	}

	if (tag !== format || damaged(value, key)) {
		throw recordDamaged(key, 'its checksum does not match its contents');
	}

	const [, id, event, receivedAt, body, bodyEncoding, , , , , , chatId, status, note, updatedAt, finishedAt, durationMs, error, attempts, generation] = value;
	return {
		id,
		event: typeof event === 'number' ? knownTypes[event] ?? `unknown type ${event}` : event,
		receivedAt,
		body,
		bodyEncoding: orUndefined(bodyEncoding),
		headers: headersOf(value),
		chatId: orUndefined(chatId),
		status,
		note: orUndefined(note),
		updatedAt: updatedAt ?? receivedAt,
		finishedAt: orUndefined(finishedAt),
		durationMs: orUndefined(durationMs),
		error: orUndefined(error),
		attempts,
		generation,
	};
}

/** The refusal of a record that is not what was written under `key`. */
export function recordDamaged(key: TimeKey, reason: string) {
	// A damaged key may hold a time no date has: it is then named as it is.
	const at = new Date(key[0]);
	const receivedAt = Number.isNaN(at.getTime()) ? `at an unreadable time (${String(key[0])})` : at.toISOString();
	return journalError('journal-record-damaged', {id: key[1], receivedAt, reason}, `the journal's record of event ${key[1]} is damaged: ${reason}`);
}
