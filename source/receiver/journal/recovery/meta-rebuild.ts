/**
 * New meta pages for a journal whose own are lost (zeroed or overwritten), so that `events recover`
 * can read its data pages. LMDB finds everything from the meta pages: the root of the main
 * database, whose leaf holds one record per named database (`events`, `steps`, …) with that
 * database's root. Without them LMDB cannot open the file, although every event may still be there.
 *
 * So the pages are scanned for the main database's leaf: a leaf page whose nodes are named-database
 * records, one of them `events`; of several copies (LMDB writes a new copy at each commit and frees
 * the old one) the one with the newest transaction id on its page header wins. Meta pages naming it
 * as the main root, with an empty free list, are written into a copy of the file (never into the
 * damaged one), which is then read like any journal. The layout is the one lmdb-js ships (24-byte
 * page headers carrying the page's transaction id), the same integrity.ts reads.
 */
import {closeSync, copyFileSync, fstatSync, openSync, readSync, writeSync} from 'node:fs';
import {makePrivate} from '../../../private-files.js';

export const header = {pgno: 0, txnId: 8, flags: 0x12, lower: 0x14, size: 24} as const;
export const pageFlags = {leaf: 0x02, meta: 0x08, overflow: 0x04} as const;
const subData = 0x02;
const magic = 0xBE_EF_C0_DE;
const dataVersion = 2;
const integerKey = 0x08;
const dbRecordBytes = 48;
const noPage = 0xFF_FF_FF_FF_FF_FF_FF_FFn;
const pageSizes = [4096, 8192, 16_384, 32_768, 65_536, 2048, 1024, 512];

export function readPage(fd: number, pageSize: number, page: number): Buffer | undefined {
	const buffer = Buffer.alloc(pageSize);
	return readSync(fd, buffer, 0, pageSize, page * pageSize) === pageSize ? buffer : undefined;
}

/** The page size under which the most pages carry their own number (the first 64 data pages looked at). */
export function pageSizeOf(fd: number, size: number): number {
	let best = {pageSize: 4096, hits: 0};
	for (const pageSize of pageSizes) {
		let hits = 0;
		for (let page = 2; page < Math.min(size / pageSize, 66); page++) {
			const buffer = readPage(fd, pageSize, page);
			if (buffer && buffer.readBigUInt64LE(header.pgno) === BigInt(page)) {
				hits++;
			}
		}

		if (hits > best.hits) {
			best = {pageSize, hits};
		}
	}

	return best.pageSize;
}

/** The named-database records of a leaf page, or undefined when it is not the main database's leaf. */
function namedDatabases(page: Buffer): number | undefined {
	const flags = page.readUInt16LE(header.flags);
	if ((flags & pageFlags.leaf) === 0 || (flags & (pageFlags.meta | pageFlags.overflow)) !== 0) {
		return undefined;
	}

	const count = page.readUInt16LE(header.lower) >> 1;
	if (count === 0 || header.size + (count * 2) > page.length) {
		return undefined;
	}

	let named = 0;
	let events = false;
	for (let index = 0; index < count; index++) {
		const at = header.size + page.readUInt16LE(header.size + (index * 2));
		if (at + 8 > page.length) {
			return undefined;
		}

		const nodeFlags = page.readUInt16LE(at + 4);
		const keySize = page.readUInt16LE(at + 6);
		const dataSize = page.readUInt16LE(at) | (page.readUInt16LE(at + 2) << 16);
		if ((nodeFlags & subData) === 0 || dataSize !== dbRecordBytes || at + 8 + keySize + dataSize > page.length) {
			continue;
		}

		named++;
		// lmdb-js stores a database's name with its terminating zero byte.
		events ||= page.toString('latin1', at + 8, at + 8 + keySize).replace(/\0+$/, '') === 'events';
	}

	return events ? named : undefined;
}

function metaPage(pageSize: number, page: number, fields: {mapSize: number; root: bigint; entries: number; lastPage: number; txnId: bigint}): Buffer {
	const buffer = Buffer.alloc(pageSize);
	buffer.writeBigUInt64LE(BigInt(page), header.pgno);
	buffer.writeUInt16LE(pageFlags.meta, header.flags);
	const meta = header.size;
	buffer.writeUInt32LE(magic, meta);
	buffer.writeUInt32LE(dataVersion, meta + 4);
	buffer.writeBigUInt64LE(BigInt(fields.mapSize), meta + 0x10);
	// The free-space database: empty (the copy is only read). Its pad and flags hold the page size and the environment's flags.
	const free = meta + 0x18;
	buffer.writeUInt32LE(pageSize, free);
	buffer.writeUInt16LE(integerKey, free + 4);
	buffer.writeBigUInt64LE(noPage, free + 40);
	// The main database: one leaf, the one found.
	const main = free + dbRecordBytes;
	buffer.writeUInt16LE(1, main + 6);
	buffer.writeBigUInt64LE(1n, main + 16);
	buffer.writeBigUInt64LE(BigInt(fields.entries), main + 32);
	buffer.writeBigUInt64LE(fields.root, main + 40);
	buffer.writeBigUInt64LE(BigInt(fields.lastPage), main + dbRecordBytes);
	buffer.writeBigUInt64LE(fields.txnId, main + dbRecordBytes + 8);
	return buffer;
}

/**
 * Copies `source` to `target` with new meta pages naming the newest main-database leaf found.
 * Returns false (and writes nothing usable) when no such leaf is in the file.
 */
export function copyWithNewMeta(source: string, target: string): boolean {
	const fd = openSync(source, 'r');
	let found: {page: number; txnId: bigint; entries: number} | undefined;
	let newest = 0n;
	let pageSize: number;
	let pages: number;
	try {
		const {size} = fstatSync(fd);
		pageSize = pageSizeOf(fd, size);
		pages = Math.floor(size / pageSize);
		for (let page = 2; page < pages; page++) {
			const buffer = readPage(fd, pageSize, page);
			if (!buffer || buffer.readBigUInt64LE(header.pgno) !== BigInt(page)) {
				continue;
			}

			const txnId = buffer.readBigUInt64LE(header.txnId);
			newest = txnId > newest ? txnId : newest;
			const entries = namedDatabases(buffer);
			if (entries !== undefined && (!found || txnId > found.txnId)) {
				found = {page, txnId, entries};
			}
		}
	} finally {
		closeSync(fd);
	}

	if (!found) {
		return false;
	}

	copyFileSync(source, target);
	// A copy keeps its source's mode; it lies in a private folder until it is set.
	makePrivate(target);
	const out = openSync(target, 'r+');
	try {
		for (const page of [0, 1]) {
			const meta = metaPage(pageSize, page, {mapSize: pages * pageSize, root: BigInt(found.page), entries: found.entries, lastPage: pages - 1, txnId: newest + 1n});
			writeSync(out, meta, 0, meta.length, page * pageSize);
		}
	} finally {
		closeSync(out);
	}

	return true;
}
