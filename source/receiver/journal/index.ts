/**
 * `openJournal`: the durable event backend of `serve` (LMDB in the data directory). Modes:
 * `serve` takes the owner lock (one serve per directory) and resumes unfinished events when
 * started; `read` lists and shows while a serve runs; `replay` reprocesses single events, claiming
 * each so no two processes work on one event at once.
 */
import {existsSync} from 'node:fs';
import {errorMessage} from '../../format/value.js';
import {makePrivateDir} from '../../private-files.js';
import {folderAccess} from '../../private-folder.js';
import type {EventBackend} from '../store/backend.js';
import {defaultAbortGraceMs} from '../drain.js';
import {emptyJournal} from './records/empty.js';
import {journalError} from './errors.js';
import {guardCommitFailures} from './open/health.js';
import {checkJournal, recordIdentity} from './open/integrity.js';
import {JournalBackend} from './journal.js';
import {drawToken, dropToken, listenAsHolder, liveHolders} from './open/liveness.js';
import {journalDirectory} from './open/location.js';
import {releaseOwnership, takeOwnership} from './open/owner.js';
import {breakSeal, matchesSeal, sealJournal} from './recovery/seal.js';
import {DiskSpace} from './open/space.js';
import {dataFile, journalExists, openStores, type Stores} from './store.js';
import {verifyJournal} from './recovery/verify.js';
import {readOnlyCause, readOnlyText} from './open/writable.js';
import {openWriteAhead, type WriteAhead, type WriteAheadSettings} from './wal/open.js';

export {defaultDataDir, journalDirectory} from './open/location.js';
export {JournalError, type JournalErrorCode, type JournalErrorData} from './errors.js';
export {JournalBackend} from './journal.js';

export type JournalMode = 'serve' | 'read' | 'replay';

export type JournalOptions = {
	/** The data directory; the journal lives in its `journal` folder. */
	directory: string;
	/** Events older than this are pruned. Default 7 days. */
	maxAgeMs?: number;
	/** At most this many events are kept. Default 100 000. */
	maxEntries?: number;
	/** Default 'serve'. */
	mode?: JournalMode;
	/** Event ids waiting in memory at most (beyond: on disk only). Default 1000. */
	memoryLimit?: number;
	/** How often retention runs (and events left by dead processes are looked for). Default 10 min. */
	pruneIntervalMs?: number;
	/** How often events held by another process are looked at again, so a dead one's claims are taken over. Default 30 s. */
	claimCheckMs?: number;
	/** How often accepted ids are written into the exactly-once index, ms. Default 1000. */
	indexFlushMs?: number;
	/** After the drain deadline, how long cut-off jobs get for their failure path, ms. Default 31 000. */
	abortGraceMs?: number;
	/**
	 * Flush each commit to disk before `accept` resolves (default true). False acknowledges once the
	 * OS holds the commit: safe against a process crash, not against an OS crash or power cut.
	 */
	flushBeforeAck?: boolean;
	/** The write-ahead log's sizes and how often it moves events into LMDB (wal/open.ts). */
	writeAhead?: WriteAheadSettings;
	/** Read the whole journal in a child before mapping it here (verify.ts). Default true. */
	verify?: boolean;
	/** The command that owns the journal (mode `serve`), named to a second one refused: `serve` or `listen`. */
	owner?: string;
	/** Makes `accept` fail as an unwritable journal does (tests). */
	failWrites?: () => boolean;
	/** Free disk space kept for the journal's bookkeeping: below it new events get 503 (space.ts). Default 2 MiB. */
	diskReserveBytes?: number;
	/** While the disk is full, how often its free space is measured again, ms. Default 1000. */
	spaceCheckMs?: number;
};

export const defaultMaxAgeMs = 7 * 24 * 60 * 60 * 1000;
export const defaultMaxEntries = 100_000;

/**
 * Before the journal opens: a read-only journal (or data directory, for a new one) is refused
 * unless only read; a journal no other process holds is checked, and read through unless sealed.
 * True when the journal can only be read.
 */
async function checkFolder(options: JournalOptions, mode: JournalMode, folder: string): Promise<boolean> {
	// A journal not made yet is refused when its data directory is on a read-only file system.
	const fresh = !existsSync(folder) && mode === 'serve' && existsSync(options.directory) && readOnlyCause(options.directory) === 'file-system';
	const cause = existsSync(folder) ? readOnlyCause(folder, dataFile(folder)) : (fresh ? 'file-system' : undefined);
	const readOnly = cause !== undefined;
	if (cause && mode !== 'read') {
		throw journalError('journal-read-only', {directory: options.directory, folder, ...(cause === 'file-system' ? {readOnlyFileSystem: true} : {})}, readOnlyText(folder, cause));
	}

	if (existsSync(folder)) {
		// The lock comes first: a journal another process has open was checked by that process, and
		// its file may be mid-write (shorter than its pages for a moment), so it is not checked here;
		// a second serve is then refused naming its owner (takeOwnership below), never told of damage.
		const inUse = (await liveHolders(folder)).length > 0;
		if (!inUse) {
			checkJournal(folder, options.directory);
		}

		// A journal as its last clean stop left it needs no read-through; a writer breaks the seal first.
		const readThrough = !inUse && journalExists(folder) && options.verify !== false && !await matchesSeal(folder);
		if (mode !== 'read') {
			breakSeal(folder);
		}

		if (readThrough) {
			await verifyJournal(folder, options.directory, mode !== 'read');
		}
	}

	return readOnly;
}

/** The journal's stores, in a private folder; the disk's free space watched where the journal writes. */
function openFolder(options: JournalOptions, mode: JournalMode, folder: string, readOnly: boolean): Stores {
	try {
		makePrivateDir(folder);
		const space = readOnly || mode === 'read' ? undefined : new DiskSpace(folder, options.diskReserveBytes === undefined ? {} : {reserveBytes: options.diskReserveBytes});
		const stores = openStores(folder, {flushBeforeAck: options.flushBeforeAck ?? true, readOnly, ...(space ? {space} : {})});
		if (mode === 'serve') {
			recordIdentity(folder);
		}

		return stores;
	} catch (error) {
		throw journalError('journal-open-failed', {directory: options.directory, reason: errorMessage(error)}, `the journal in ${options.directory} could not be opened: ${errorMessage(error)}`, error);
	}
}

export async function openJournal(options: JournalOptions): Promise<EventBackend> {
	const mode = options.mode ?? 'serve';
	// Another user's folder (or a path through another user's link) is refused before anything is read.
	folderAccess(options.directory, 'data');
	const folder = journalDirectory(options.directory);
	const readOnly = await checkFolder(options, mode, folder);
	if (mode !== 'serve' && !journalExists(folder)) {
		return emptyJournal();
	}

	const stores = openFolder(options, mode, folder, readOnly);
	if (mode !== 'read') {
		guardCommitFailures();
	}

	const token = drawToken();
	let held: Awaited<ReturnType<typeof listenAsHolder>> | undefined;
	try {
		if (mode !== 'read') {
			held = await listenAsHolder(folder, token);
		}

		if (mode === 'serve') {
			const mine = held?.holder ?? {pid: process.pid, token, at: new Date().toISOString()};
			await takeOwnership(stores, options.owner === undefined ? mine : {...mine, command: options.owner}, options.directory);
		}
	} catch (error) {
		await held?.release();
		dropToken(token);
		await stores.root.close();
		throw error;
	}

	const holder = held?.holder ?? {pid: process.pid, token, at: new Date().toISOString()};
	let writeAhead: WriteAhead | undefined;
	if (mode === 'serve' && options.flushBeforeAck !== false) {
		try {
			writeAhead = await openWriteAhead(stores, folder, options.directory, options.writeAhead);
		} catch (error) {
			await held?.release();
			dropToken(token);
			await stores.root.close();
			throw error;
		}
	}

	return new JournalBackend(stores, holder, {
		maxAgeMs: options.maxAgeMs ?? defaultMaxAgeMs,
		maxEntries: options.maxEntries ?? defaultMaxEntries,
		memoryLimit: options.memoryLimit ?? 1000,
		writer: mode === 'serve',
		indexFlushMs: options.indexFlushMs ?? 1000,
		pruneIntervalMs: options.pruneIntervalMs ?? 10 * 60 * 1000,
		claimCheckMs: options.claimCheckMs ?? 30_000,
		spaceCheckMs: options.spaceCheckMs ?? 1000,
		abortGraceMs: options.abortGraceMs ?? defaultAbortGraceMs,
		...(options.failWrites ? {failWrites: options.failWrites} : {}),
		...(writeAhead ? {writeAhead} : {}),
		async onClose() {
			if (mode === 'serve') {
				await releaseOwnership(stores, holder);
			}

			await held?.release();
		},
		// Sealed only when this serve read the file through or found it sealed, and no commit failed
		// (a failed one may have left a torn page that the next open must read through).
		...(mode === 'serve' && options.verify !== false ? {async onClosed(run: {writeFailed: boolean}) {
			if (!run.writeFailed) {
				await sealJournal(folder);
			}
		}} : {}),
	});
}
