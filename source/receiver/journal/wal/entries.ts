/**
 * The entries of the journal's write-ahead log (`events.wal`, log.ts): each new event as it was
 * acknowledged, before LMDB holds it.
 *
 * An entry is a 20-byte header and a payload:
 * - magic (u32 LE, `PTW2`), the payload's length (u32 LE), a CRC32 (u32 LE) of the bytes after it;
 * - the entry's sequence number (f64 LE): one more than the entry before it, across the file's laps;
 * - the payload: the event's key time (f64 LE), whether it is queued (a byte, 1 or 0), then its
 *   stored record as the `events` database encodes it (msgpack), so the move puts these very
 *   bytes into LMDB (apply.ts): the record is encoded once, not as JSON here and again there.
 *
 * Entries of the log's first format (`PTW1`, the payload the JSON of `[key time, id, stored tuple,
 * queued]`) are read as well, so a log a writer of that format left is still moved in.
 *
 * The file is written from its start again once LMDB holds every entry in it (a new lap), so older
 * entries may follow the newest ones. They are told apart by the sequence number: the `marks`
 * database keeps the highest one LMDB holds (`wal-applied`, written in the commit that applies it),
 * and only the entries above it are read back (`readLog`).
 */
import {crc32} from 'node:zlib';
import type {EventTuple} from '../records/record-codec.js';

/** `PTW` and the format's digit, as the file holds them. */
const magicPrefix = Buffer.from('PTW');
const firstFormat = 0x31;
const currentFormat = 0x32;
export const headerBytes = 20;
/** The key time and the queue flag, before the record. */
const payloadHead = 9;

export type LogEntry = {seq: number; ms: number; id: string; tuple: EventTuple; queued: boolean};

/** Reads a record as the `events` database decodes its values (msgpack). */
export type DecodeRecord = (bytes: Buffer) => unknown;

/** One entry, ready to be written; `record`: the event's stored tuple as the `events` database encodes it. */
export function encodeEntry(seq: number, ms: number, queued: boolean, record: Uint8Array): Buffer {
	const entry = Buffer.allocUnsafe(headerBytes + payloadHead + record.length);
	magicPrefix.copy(entry, 0);
	entry[3] = currentFormat;
	entry.writeUInt32LE(payloadHead + record.length, 4);
	entry.writeDoubleLE(seq, 12);
	entry.writeDoubleLE(ms, headerBytes);
	entry[headerBytes + 8] = queued ? 1 : 0;
	entry.set(record, headerBytes + payloadHead);
	entry.writeUInt32LE(crc32(entry.subarray(12)), 8);
	return entry;
}

export type LogRead = {
	/** The entries above `after`, in sequence order. */
	entries: LogEntry[];
	/** The highest sequence number in the file (valid entries only), or `after` when there is none above it. */
	lastSeq: number;
	/** Sequence numbers between `after` and `lastSeq` with no readable entry: written, then damaged. */
	missing: number[];
};

function entryOf(seq: number, ms: unknown, tuple: unknown, queued: boolean): LogEntry | undefined {
	return typeof ms === 'number' && Array.isArray(tuple) && typeof tuple[1] === 'string' ? {seq, ms, id: tuple[1], tuple: tuple as EventTuple, queued} : undefined;
}

function decode(buffer: Buffer, offset: number, end: number, seq: number, decodeRecord: DecodeRecord): LogEntry | undefined {
	const start = offset + headerBytes;
	try {
		if (buffer[offset + 3] === firstFormat) {
			const [ms, id, tuple, queued] = JSON.parse(buffer.toString('utf8', start, end)) as [unknown, unknown, unknown, unknown];
			return typeof id === 'string' && Array.isArray(tuple) && tuple[1] === id ? entryOf(seq, ms, tuple, queued === true) : undefined;
		}

		return end - start > payloadHead ? entryOf(seq, buffer.readDoubleLE(start), decodeRecord(buffer.subarray(start + payloadHead, end)), buffer[start + 8] === 1) : undefined;
	} catch {
		return undefined;
	}
}

/**
 * Every readable entry of the file above `after`. Entries are found by their magic, so a damaged
 * one is skipped and the ones after it are still read; the sequence numbers the file then lacks
 * below its highest are `missing`. Entries cut short at the end (a write that never finished, so
 * never acknowledged) are not missing: nothing above them was read.
 */
export function readLog(buffer: Buffer, after: number, decodeRecord: DecodeRecord): LogRead {
	const found = new Map<number, LogEntry>();
	let lastSeq = after;
	let offset = buffer.indexOf(magicPrefix, 0);
	while (offset !== -1 && offset + headerBytes <= buffer.length) {
		const format = buffer[offset + 3];
		const length = buffer.readUInt32LE(offset + 4);
		const end = offset + headerBytes + length;
		const seq = buffer.readDoubleLE(offset + 12);
		if ((format === currentFormat || format === firstFormat) && end <= buffer.length && Number.isSafeInteger(seq) && seq > after && buffer.readUInt32LE(offset + 8) === crc32(buffer.subarray(offset + 12, end))) {
			const entry = decode(buffer, offset, end, seq, decodeRecord);
			if (entry) {
				found.set(seq, entry);
				lastSeq = Math.max(lastSeq, seq);
				offset = buffer.indexOf(magicPrefix, end);
				continue;
			}
		}

		// An entry LMDB already holds, a damaged one, or a magic inside a payload: the next magic.
		offset = buffer.indexOf(magicPrefix, offset + 1);
	}

	const entries: LogEntry[] = [];
	const missing: number[] = [];
	for (let seq = after + 1; seq <= lastSeq; seq++) {
		const entry = found.get(seq);
		if (entry) {
			entries.push(entry);
		} else {
			missing.push(seq);
		}
	}

	return {entries, lastSeq, missing};
}
