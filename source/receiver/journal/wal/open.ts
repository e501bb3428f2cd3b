/**
 * The write-ahead log as the journal's writer opens it: the entries LMDB does not hold yet (left by
 * a process that stopped before moving them) are moved in first, in one commit, then the log and
 * its mover (apply.ts) start from the highest sequence number.
 */
import {existsSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {errorMessage} from '../../../format/value.js';
import {journalError} from '../errors.js';
import {markKey} from '../records/id-index.js';
import {valueDecoder, type Stores} from '../store.js';
import {appliedKey, LogApplier, putMoved} from './apply.js';
import {readLog, type LogRead} from './entries.js';
import {WriteAheadLog, type LogLimits} from './log.js';

export type WriteAhead = {log: WriteAheadLog; applier: LogApplier};

export type WriteAheadSettings = LogLimits & {
	/** Under load, new events move into LMDB this often, ms. Default 20. */
	applyEveryMs?: number;
	/** A failed move is tried again after this long, ms. Default 1000. */
	retryMs?: number;
};

export function logFile(folder: string): string {
	return path.join(folder, 'events.wal');
}

/** The log's entries LMDB does not hold (none when there is no log). */
export function unappliedEntries(stores: Stores, folder: string): LogRead {
	const applied = stores.marks.get(appliedKey) ?? 0;
	const file = logFile(folder);
	return existsSync(file) ? readLog(readFileSync(file), applied, valueDecoder(stores)) : {entries: [], lastSeq: applied, missing: []};
}

/**
 * Moves `read`'s entries into LMDB in one commit, with the highest sequence number. The
 * exactly-once index's mark comes down to the earliest of them if it is above it (an event keyed
 * before the mark, its clock set back, whose lowered mark the stopped writer had not committed), so
 * the index takes in every one of them as it opens.
 */
async function applyEntries(stores: Stores, read: LogRead): Promise<void> {
	if (read.entries.length === 0) {
		return;
	}

	const earliest = read.entries.reduce((lowest, entry) => Math.min(lowest, entry.ms), Number.POSITIVE_INFINITY);
	const mark = stores.marks.get(markKey);
	if (mark !== undefined && earliest < mark) {
		stores.marks.put(markKey, earliest).catch(() => undefined);
	}

	await putMoved(stores, read.entries.map(entry => ({key: [entry.ms, entry.id], value: entry.tuple, queued: entry.queued})), read.lastSeq);
}

/**
 * Opens the log of the journal in `folder` for its writer. Throws `journal-damaged` when entries
 * the log was given no longer read back (`events recover` moves the readable ones).
 */
export async function openWriteAhead(stores: Stores, folder: string, dataDirectory: string, settings: WriteAheadSettings = {}): Promise<WriteAhead> {
	const read = unappliedEntries(stores, folder);
	const file = logFile(folder);
	if (read.missing.length > 0) {
		const reason = `${read.missing.length} of the events its write-ahead log ${file} holds no longer read back`;
		throw journalError('journal-damaged', {directory: dataDirectory, file, reason}, `the journal in ${dataDirectory} is damaged: ${reason}`);
	}

	try {
		await applyEntries(stores, read);
	} catch (error) {
		const reason = `the ${read.entries.length} acknowledged events its write-ahead log holds could not be moved into it: ${errorMessage(error)}`;
		throw journalError('journal-open-failed', {directory: dataDirectory, reason}, `the journal in ${dataDirectory} could not be opened: ${reason}`, error);
	}

	const applier = new LogApplier(stores, read.lastSeq, settings.applyEveryMs, settings.retryMs);
	const log = new WriteAheadLog(file, read.lastSeq, {
		applied: () => applier.appliedSeq,
		applyAll: async () => applier.applyAll(),
		mayGrow: bytes => stores.space?.admits(bytes) ?? true,
	}, settings);
	return {log, applier};
}
