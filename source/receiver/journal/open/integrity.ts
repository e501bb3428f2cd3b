/**
 * The journal's check at open, before LMDB maps the file: LMDB trusts its file, and a damaged one
 * ends the process with a signal (SIGBUS past a truncated end, SIGSEGV on zeroed meta pages) or
 * an assertion, or an emptied file silently starts a new, empty journal. So before opening:
 *
 * - both meta pages (pages 0 and 1) must carry LMDB's magic number; the newer of them (the higher
 *   transaction id) names the last page in use, and the file must reach past it;
 * - `identity.json` beside the data file records that this folder held a journal: a data file that
 *   is missing or empty while it exists was lost, not new.
 *
 * The layout read here is lmdb-js's data file: page size from the meta page, the last page and the
 * transaction id at the meta's end. A failed check throws `journal-damaged` naming the file.
 */
import {closeSync, existsSync, openSync, readSync, statSync} from 'node:fs';
import path from 'node:path';
import {journalError} from '../errors.js';
import {writePrivateFileSync} from '../../../private-files.js';

const magic = 0xBE_EF_C0_DE;
/** Offsets inside a meta page (lmdb-js's format). */
const at = {magic: 0x18, pageSize: 0x30, lastPage: 0x90, txnId: 0x98} as const;
const metaBytes = 0xA0;

export function identityFile(folder: string): string {
	return path.join(folder, 'identity.json');
}

type Meta = {pageSize: number; lastPage: number; txnId: number};

function readMeta(fd: number, offset: number): Meta | undefined {
	const buffer = Buffer.alloc(metaBytes);
	if (readSync(fd, buffer, 0, metaBytes, offset) < metaBytes || buffer.readUInt32LE(at.magic) !== magic) {
		return undefined;
	}

	return {pageSize: buffer.readUInt32LE(at.pageSize), lastPage: Number(buffer.readBigUInt64LE(at.lastPage)), txnId: Number(buffer.readBigUInt64LE(at.txnId))};
}

/** The two meta pages, when both are LMDB's, with a page size LMDB uses. */
function metaPages(fd: number): {first: Meta; second: Meta} | {problem: string} {
	const first = readMeta(fd, 0);
	if (!first || first.pageSize < 512 || first.pageSize > 65_536 || (first.pageSize & (first.pageSize - 1)) !== 0) {
		return {problem: 'its first meta page is not an LMDB meta page'};
	}

	const second = readMeta(fd, first.pageSize);
	return second ? {first, second} : {problem: 'its second meta page is not an LMDB meta page'};
}

/** Whether the data file's meta pages are both LMDB's (else LMDB cannot open it at all). */
export function metaPagesReadable(file: string): boolean {
	const fd = openSync(file, 'r');
	try {
		return !('problem' in metaPages(fd));
	} finally {
		closeSync(fd);
	}
}

/** Why the data file cannot be opened safely, or undefined when it looks whole. */
function problemOf(file: string): string | undefined {
	const {size} = statSync(file);
	if (size === 0) {
		return 'it is empty';
	}

	const fd = openSync(file, 'r');
	try {
		const metas = metaPages(fd);
		if ('problem' in metas) {
			return metas.problem;
		}

		const {first, second} = metas;
		const newest = second.txnId > first.txnId ? second : first;
		const needed = (newest.lastPage + 1) * first.pageSize;
		if (size < needed) {
			return `it is ${size} bytes long but its pages reach ${needed} bytes (truncated)`;
		}

		return undefined;
	} finally {
		closeSync(fd);
	}
}

/**
 * Checks the journal in `folder` (its `data.mdb`) before it is opened; throws `journal-damaged`.
 * Records the identity of a journal seen whole, so that losing its file later is noticed.
 */
export function checkJournal(folder: string, dataDirectory: string): void {
	const file = path.join(folder, 'data.mdb');
	const identity = identityFile(folder);
	let reason: string | undefined;
	if (existsSync(file)) {
		reason = problemOf(file);
	} else if (existsSync(identity)) {
		reason = 'it is missing while this folder held a journal';
	}

	if (reason !== undefined) {
		throw journalError('journal-damaged', {directory: dataDirectory, file, reason}, `the journal file ${file} is damaged: ${reason}`);
	}
}

/** Notes that `folder` holds a journal (after a successful open). */
export function recordIdentity(folder: string): void {
	const identity = identityFile(folder);
	if (!existsSync(identity)) {
		writePrivateFileSync(identity, `${JSON.stringify({journal: 'platform-tui', createdAt: new Date().toISOString()})}\n`);
	}
}
