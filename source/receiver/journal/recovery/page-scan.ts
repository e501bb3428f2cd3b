/**
 * Reads records straight from the pages of a journal file LMDB cannot open (truncated, holes,
 * a broken tree), without mapping it: the file is read page by page with plain reads, so a page
 * past its end is simply absent, never a SIGBUS. Every leaf page (its number in its header, the
 * leaf flag) is taken apart node by node — key, then the value inline or in its overflow pages —
 * and each node decoded as lmdb-js wrote it (keys: ordered-binary; values: msgpack):
 *
 * - `[ms, id]` → an event tuple (record-codec.ts) whose id is the key's: an event;
 * - `[id, generation, n]` → a step;
 * - an id → a time (ms): an exactly-once id of the `seen` index.
 *
 * LMDB copies a page on write and frees the old copy, so a key may be found several times; the
 * copy on the page with the newest transaction id wins. The layout is the one meta-rebuild.ts reads.
 *
 * Keys name acknowledged events even where their values are gone: an event's key whose value lies
 * past the end or fails its checksum, and the keys of branch pages (each the first key of a page
 * below it, which may be lost), of the events, queue, steps, claims and exactly-once databases. Their
 * ids are kept too, so a redelivery of those events is still a duplicate.
 */
import {closeSync, fstatSync, openSync, readSync} from 'node:fs';
import * as lmdb from 'lmdb';
import type {StepRecord} from '../../store/backend.js';
import {header, pageFlags, pageSizeOf, readPage} from './meta-rebuild.js';
import {JournalError} from '../errors.js';
import {fromStored, type StoredRecord} from '../records/record-codec.js';
import type {SalvagedEvent} from './salvage.js';
import type {StepKey, TimeKey} from '../records/shapes.js';

const node = {size: 8, bigData: 0x01, subData: 0x02, dupData: 0x04} as const;
/** lmdb-js's own key decoder (ordered-binary), exported at run time though not in its types. */
const {bufferToKeyValue} = lmdb as unknown as {bufferToKeyValue: (bytes: Buffer) => unknown};

/** Decodes a value as the journal's databases do (lmdb-js's msgpack decoder of an open database). */
export type ValueDecoder = (bytes: Buffer) => unknown;

/** LMDB's branch page flag. */
const branchFlag = 0x01;

/** Leaf pages of sorted duplicates or sub-pages: not the journal's. */
const otherLeaves = 0x20 | 0x40;

export type PageScan = {
	events: Map<string, SalvagedEvent>;
	seen: Map<string, number>;
	/** Ids named only by keys (their values lost or damaged, or in branch pages): id → received ms, when the key holds it. */
	keyIds: Map<string, number | undefined>;
	/** Events whose record was found but fails its checksum or no longer decodes: id → its key. */
	damaged: Map<string, TimeKey>;
	/** Pages in the file, and leaf pages read. */
	pages: number;
	leaves: number;
};

type Found<T> = {value: T; txnId: bigint};

function keep<K, T>(map: Map<K, Found<T>>, key: K, value: T, txnId: bigint): void {
	const known = map.get(key);
	if (!known || known.txnId < txnId) {
		map.set(key, {value, txnId});
	}
}

const isTimeKey = (key: unknown): key is TimeKey => Array.isArray(key) && key.length === 2 && typeof key[0] === 'number' && typeof key[1] === 'string';
const isStepKey = (key: unknown): key is StepKey => Array.isArray(key) && key.length === 3 && typeof key[0] === 'string' && typeof key[1] === 'number' && typeof key[2] === 'number';

/** Keys of other databases that map a string to a number (not exactly-once ids). */
const notIds = new Set(['unindexed-from', 'owner']);

const isIdKey = (key: unknown): key is string => typeof key === 'string' && key !== '' && !notIds.has(key) && !key.startsWith('\u0000');

class Scanner {
	readonly events = new Map<string, Found<SalvagedEvent>>();
	readonly steps = new Map<string, Found<[StepKey, StepRecord]>>();
	readonly seen = new Map<string, Found<number>>();
	readonly keyIds = new Map<string, number | undefined>();
	readonly damaged = new Map<string, TimeKey>();
	constructor(private readonly fd: number, private readonly pageSize: number, private readonly size: number, private readonly decode: ValueDecoder) {}

	/** Every node of a leaf page. */
	leaf(page: Buffer, txnId: bigint): void {
		const count = page.readUInt16LE(header.lower) >> 1;
		for (let index = 0; index < count && header.size + (index * 2) + 2 <= page.length; index++) {
			const at = header.size + page.readUInt16LE(header.size + (index * 2));
			if (at + node.size > page.length) {
				continue;
			}

			const dataSize = page.readUInt16LE(at) | (page.readUInt16LE(at + 2) << 16);
			const flags = page.readUInt16LE(at + 4);
			const keySize = page.readUInt16LE(at + 6);
			const keyEnd = at + node.size + keySize;
			if ((flags & (node.subData | node.dupData)) !== 0 || keyEnd > page.length) {
				continue;
			}

			const value = (flags & node.bigData) === 0
				? (keyEnd + dataSize <= page.length ? page.subarray(keyEnd, keyEnd + dataSize) : undefined)
				: this.overflow(keyEnd + 8 <= page.length ? Number(page.readBigUInt64LE(keyEnd)) : -1, dataSize);
			if (value) {
				this.take(page.subarray(at + node.size, keyEnd), value, txnId);
			} else {
				this.takeKey(page.subarray(at + node.size, keyEnd));
			}
		}
	}

	/** Every key of a branch page (the first node's is empty): the first key of each page below. */
	branch(page: Buffer): void {
		const count = page.readUInt16LE(header.lower) >> 1;
		for (let index = 0; index < count && header.size + (index * 2) + 2 <= page.length; index++) {
			const at = header.size + page.readUInt16LE(header.size + (index * 2));
			const keyEnd = at + node.size + (at + node.size <= page.length ? page.readUInt16LE(at + 6) : 0);
			if (keyEnd > at + node.size && keyEnd <= page.length) {
				this.takeKey(page.subarray(at + node.size, keyEnd));
			}
		}
	}

	/** The id a key names, whatever its value: an event's or queue's [ms, id], a step's [id, …], an id. */
	private takeKey(keyBytes: Buffer, decoded?: unknown): void {
		let key = decoded;
		if (key === undefined) {
			try {
				key = bufferToKeyValue(keyBytes);
			} catch {
				return;
			}
		}

		if (isTimeKey(key)) {
			this.keyIds.set(key[1], key[0]);
		} else if (isStepKey(key)) {
			this.keyIds.set(key[0], this.keyIds.get(key[0]));
		} else if (isIdKey(key)) {
			this.keyIds.set(key, this.keyIds.get(key));
		}
	}

	/** A value kept in overflow pages, when the file still holds all of it. */
	private overflow(first: number, bytes: number): Buffer | undefined {
		const start = first * this.pageSize;
		if (first < 2 || start + header.size + bytes > this.size) {
			return undefined;
		}

		const head = readPage(this.fd, this.pageSize, first);
		if (head?.readBigUInt64LE(header.pgno) !== BigInt(first) || (head.readUInt16LE(header.flags) & pageFlags.overflow) === 0) {
			return undefined;
		}

		const value = Buffer.alloc(bytes);
		return readSync(this.fd, value, 0, bytes, start + header.size) === bytes ? value : undefined;
	}

	private take(keyBytes: Buffer, valueBytes: Buffer, txnId: bigint): void {
		let key: unknown;
		let value: unknown;
		try {
			key = bufferToKeyValue(keyBytes);
		} catch {
			return;
		}

		try {
			value = this.decode(valueBytes);
		} catch {
			this.takeKey(keyBytes, key);
			if (isTimeKey(key)) {
				this.damaged.set(key[1], key);
			}

			return;
		}

		if (isTimeKey(key) && Array.isArray(value)) {
			this.takeEvent(key, value as StoredRecord, txnId);
		} else if (isStepKey(key) && typeof value === 'object' && value !== null && typeof (value as {name?: unknown}).name === 'string') {
			keep(this.steps, `${key[0]}\u0000${key[1]}\u0000${key[2]}`, [key, value as StepRecord], txnId);
		} else if (typeof key === 'string' && typeof value === 'number' && !notIds.has(key)) {
			keep(this.seen, key, value, txnId);
		} else {
			this.takeKey(keyBytes, key);
		}
	}

	private takeEvent(key: TimeKey, value: StoredRecord, txnId: bigint): void {
		this.takeKey(Buffer.alloc(0), key);
		try {
			const record = fromStored(value, key);
			if (record.id === key[1] && typeof record.status === 'string' && typeof record.body === 'string') {
				keep(this.events, record.id, {key, record}, txnId);
			}
		} catch (error) {
			// One that fails its checksum is named; one of a format this version cannot read is left.
			if (error instanceof JournalError && error.code === 'journal-record-damaged') {
				this.damaged.set(key[1], key);
			}
		}
	}
}

/** What is left of a page the file's end cuts: its bytes up to the end (every node read is bounded by them). */
function partPage(fd: number, pageSize: number, number: number, size: number): Buffer | undefined {
	const bytes = Buffer.alloc(Math.min(pageSize, size - (number * pageSize)));
	return bytes.length > header.size && readSync(fd, bytes, 0, bytes.length, number * pageSize) === bytes.length ? bytes : undefined;
}

/** Every event, step and exactly-once id the pages of `file` still hold. */
export function scanPages(file: string, decode: ValueDecoder): PageScan {
	const fd = openSync(file, 'r');
	try {
		const {size} = fstatSync(fd);
		const pageSize = pageSizeOf(fd, size);
		const whole = Math.floor(size / pageSize);
		// A file cut mid-page: the nodes of its last page that the cut left whole are read too.
		const pages = Math.ceil(size / pageSize);
		const scanner = new Scanner(fd, pageSize, size, decode);
		let leaves = 0;
		for (let number = 2; number < pages; number++) {
			const page = number < whole ? readPage(fd, pageSize, number) : partPage(fd, pageSize, number, size);
			if (page?.readBigUInt64LE(header.pgno) !== BigInt(number)) {
				continue;
			}

			const flags = page.readUInt16LE(header.flags);
			if ((flags & pageFlags.leaf) !== 0 && (flags & (pageFlags.meta | pageFlags.overflow | otherLeaves)) === 0) {
				leaves++;
				scanner.leaf(page, page.readBigUInt64LE(header.txnId));
			} else if ((flags & branchFlag) !== 0 && (flags & (pageFlags.leaf | pageFlags.meta | pageFlags.overflow)) === 0) {
				scanner.branch(page);
			}
		}

		// A damaged copy of an event that another copy gives whole is not damage that loses it.
		const damaged = new Map([...scanner.damaged].filter(([id]) => !scanner.events.has(id)));
		return {events: eventsWithSteps(scanner), seen: new Map([...scanner.seen].map(([id, found]) => [id, found.value])), keyIds: scanner.keyIds, damaged, pages, leaves};
	} finally {
		closeSync(fd);
	}
}

/** The events found, each with the steps of its generation (in order) when any were found. */
function eventsWithSteps(scanner: Scanner): Map<string, SalvagedEvent> {
	const steps = new Map<string, Array<[StepKey, StepRecord]>>();
	for (const {value} of scanner.steps.values()) {
		const owner = `${value[0][0]}\u0000${value[0][1]}`;
		steps.set(owner, [...steps.get(owner) ?? [], value]);
	}

	const events = new Map<string, SalvagedEvent>();
	for (const [id, {value}] of scanner.events) {
		const own = steps.get(`${id}\u0000${value.record.generation}`)?.sort((a, b) => a[0][2] - b[0][2]);
		// An event never attempted has no steps to lose; one attempted whose steps are not found is copied without them.
		events.set(id, own !== undefined || value.record.attempts === 0 ? {...value, steps: own ?? []} : value);
	}

	return events;
}
