/**
 * The entries of the journal's write-ahead log (`events.wal`, log.ts): each new event as it was
 * acknowledged, before LMDB holds it.
 *
 * An entry is a 20-byte header and a payload:
 * - magic (u32 LE, `PTW1`), the payload's length (u32 LE), a CRC32 (u32 LE) of the bytes after it;
 * - the entry's sequence number (f64 LE): one more than the entry before it, across the file's laps;
 * - the payload: the JSON of `[key time, id, stored tuple, queued]`.
 *
 * The file is written from its start again once LMDB holds every entry in it (a new lap), so older
 * entries may follow the newest ones. They are told apart by the sequence number: the `marks`
 * database keeps the highest one LMDB holds (`wal-applied`, written in the commit that applies it),
 * and only the entries above it are read back (`readLog`).
 */
import {crc32} from 'node:zlib';
import type {EventTuple} from '../records/record-codec.js';

const magic = 0x3157_5450;
export const headerBytes = 20;
const magicBytes = Buffer.from([0x50, 0x54, 0x57, 0x31]);

export type LogEntry = {seq: number; ms: number; id: string; tuple: EventTuple; queued: boolean};

/** One entry, ready to be written. */
export function encodeEntry(seq: number, ms: number, id: string, tuple: EventTuple, queued: boolean): Buffer {
	const payload = JSON.stringify([ms, id, tuple, queued]);
	const length = Buffer.byteLength(payload);
	const entry = Buffer.allocUnsafe(headerBytes + length);
	entry.writeUInt32LE(magic, 0);
	entry.writeUInt32LE(length, 4);
	entry.writeDoubleLE(seq, 12);
	entry.write(payload, headerBytes, 'utf8');
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

function decode(buffer: Buffer, offset: number, length: number, seq: number): LogEntry | undefined {
	try {
		const [ms, id, tuple, queued] = JSON.parse(buffer.toString('utf8', offset + headerBytes, offset + headerBytes + length)) as [unknown, unknown, unknown, unknown];
		return typeof ms === 'number' && typeof id === 'string' && Array.isArray(tuple) ? {seq, ms, id, tuple: tuple as EventTuple, queued: queued === true} : undefined;
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
export function readLog(buffer: Buffer, after: number): LogRead {
	const found = new Map<number, LogEntry>();
	let lastSeq = after;
	let offset = buffer.indexOf(magicBytes, 0);
	while (offset !== -1 && offset + headerBytes <= buffer.length) {
		const length = buffer.readUInt32LE(offset + 4);
		const end = offset + headerBytes + length;
		const seq = buffer.readDoubleLE(offset + 12);
		if (end <= buffer.length && Number.isSafeInteger(seq) && seq > after && buffer.readUInt32LE(offset + 8) === crc32(buffer.subarray(offset + 12, end))) {
			const entry = decode(buffer, offset, length, seq);
			if (entry) {
				found.set(seq, entry);
				lastSeq = Math.max(lastSeq, seq);
				offset = buffer.indexOf(magicBytes, end);
				continue;
			}
		}

		// An entry LMDB already holds, a damaged one, or a magic inside a payload: the next magic.
		offset = buffer.indexOf(magicBytes, offset + 1);
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
