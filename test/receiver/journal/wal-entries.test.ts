import {crc32} from 'node:zlib';
import {describe, expect, it} from 'vitest';
import {newEventTuple, type EventTuple} from '../../../source/receiver/journal/records/record-codec.js';
import {encodeEntry, headerBytes, readLog} from '../../../source/receiver/journal/wal/entries.js';
import {newEvent, newId} from './helpers.js';

const ms = Date.parse('2026-11-28T08:00:00.000Z');

// The framing is what is tested here: the record's bytes are JSON (the journal gives the bytes of
// its own encoding, and reads them back with its decoder: wal.test.ts).
const decode = (bytes: Buffer): unknown => JSON.parse(bytes.toString('utf8'));

function entry(seq: number, body = '{"text":"hello"}') {
	const event = newEvent({id: newId(), body});
	return {id: event.id, bytes: encodeEntry(seq, ms, seq % 2 === 0, Buffer.from(JSON.stringify(newEventTuple(event, ms))))};
}

/** An entry of the log's first format: `PTW1`, the payload the JSON of `[key time, id, tuple, queued]`. */
function firstFormatEntry(seq: number, id: string, tuple: EventTuple, queued: boolean): Buffer {
	const payload = Buffer.from(JSON.stringify([ms, id, tuple, queued]));
	const bytes = Buffer.alloc(headerBytes + payload.length);
	bytes.write('PTW1', 0, 'latin1');
	bytes.writeUInt32LE(payload.length, 4);
	bytes.writeDoubleLE(seq, 12);
	payload.copy(bytes, headerBytes);
	bytes.writeUInt32LE(crc32(bytes.subarray(12)), 8);
	return bytes;
}

describe('the write-ahead log\'s entries', () => {
	it('reads back every entry above the applied number, in order, with its key, record and queue flag', () => {
		const written = [1, 2, 3, 4].map(seq => entry(seq));
		const read = readLog(Buffer.concat([...written.map(item => item.bytes), Buffer.alloc(4096)]), 1, decode);
		expect(read.entries.map(item => [item.seq, item.id, item.ms, item.queued])).toEqual([2, 3, 4].map(seq => [seq, written[seq - 1]?.id, ms, seq % 2 === 0]));
		expect(read.entries[0]?.tuple[1]).toBe(written[1]?.id);
		expect(read).toMatchObject({lastSeq: 4, missing: []});
	});

	it('skips the entries of an older lap after the newest ones, and finds entries whose body holds the magic', () => {
		// A lap of 1..6, then a new lap from the start: 7 and 8 written over 1 and 2.
		const old = [1, 2, 3, 4, 5, 6].map(seq => entry(seq));
		const fresh = [entry(7, '{"text":"PTW2 and PTW1 inside a body"}'), entry(8)];
		const file = Buffer.concat([...old.map(item => item.bytes), Buffer.alloc(1024)]);
		Buffer.concat(fresh.map(item => item.bytes)).copy(file, 0);
		const read = readLog(file, 6, decode);
		expect(read.entries.map(item => item.id)).toEqual(fresh.map(item => item.id));
		expect(read.missing).toEqual([]);
	});

	it('names a damaged entry among later ones as missing; an entry cut short at the end is not', () => {
		const written = [1, 2, 3, 4].map(seq => entry(seq));
		const file = Buffer.concat(written.map(item => item.bytes));
		// One byte of entry 2's payload changed.
		const second = (written[0]?.bytes.length ?? 0) + headerBytes + 5;
		file[second] = (file[second] ?? 0) ^ 0x20;
		const damaged = readLog(file, 0, decode);
		expect(damaged.entries.map(item => item.seq)).toEqual([1, 3, 4]);
		expect(damaged.missing).toEqual([2]);

		const torn = readLog(Buffer.concat(written.map(item => item.bytes)).subarray(0, file.length - 7), 0, decode);
		expect(torn.entries.map(item => item.seq)).toEqual([1, 2, 3]);
		expect(torn).toMatchObject({lastSeq: 3, missing: []});
	});

	it('reads nothing from zeros or an empty file', () => {
		expect(readLog(Buffer.alloc(0), 5, decode)).toEqual({entries: [], lastSeq: 5, missing: []});
		expect(readLog(Buffer.alloc(65_536), 0, decode)).toEqual({entries: [], lastSeq: 0, missing: []});
	});

	it('reads the entries of the first format (JSON) beside the current one, in sequence order', () => {
		const event = newEvent({id: newId()});
		const old = firstFormatEntry(1, event.id, newEventTuple(event, ms), true);
		const current = entry(2);
		const read = readLog(Buffer.concat([old, current.bytes]), 0, decode);
		expect(read.entries.map(item => [item.seq, item.id, item.ms, item.queued])).toEqual([[1, event.id, ms, true], [2, current.id, ms, true]]);
		expect(read.entries[0]?.tuple[1]).toBe(event.id);
		expect(read.missing).toEqual([]);
	});

	it('an entry whose record does not decode to a stored tuple is missing', () => {
		const written = [entry(1), {bytes: encodeEntry(2, ms, false, Buffer.from('"not a tuple"'))}, entry(3)];
		const read = readLog(Buffer.concat(written.map(item => item.bytes)), 0, decode);
		expect(read.entries.map(item => item.seq)).toEqual([1, 3]);
		expect(read.missing).toEqual([2]);
	});
});
