/**
 * `events recover`: copies every readable event of a journal (damaged or not), with its steps and
 * state, and the exactly-once index into a fresh journal, and keeps the old one beside it as
 * `journal.damaged-<time>` in the data directory. The old file is only ever read, in child
 * processes (salvage.ts); when its meta pages are lost, from a copy with new ones (meta-rebuild.ts).
 * Refused while a process has the journal open (a serve or a replay: its holder socket accepts).
 */
import {existsSync, renameSync, rmSync, statSync} from 'node:fs';
import path from 'node:path';
import {JournalError, journalError} from '../errors.js';
import {checkJournal, metaPagesReadable, recordIdentity} from '../open/integrity.js';
import {liveHolders} from '../open/liveness.js';
import {journalDirectory} from '../open/location.js';
import {copyWithNewMeta} from './meta-rebuild.js';
import {scanPages, type PageScan} from './page-scan.js';
import {salvage, type Salvage} from './salvage.js';
import {addLogEvents, logReadsBack} from './log-salvage.js';
import {dataFile, openStores, valueDecoder, writeEvent, type Stores} from '../store.js';
import {verifyJournal} from './verify.js';
import {readOnlyCause, readOnlyText} from '../open/writable.js';
import {makePrivateDir} from '../../../private-files.js';
import {folderAccess} from '../../../private-folder.js';

/** A journal with nothing to recover: every record reads and passes its checksum, and serve can write it. */
export type WholeJournal = {whole: true; file: string; journal: string; events: number; ids: number};

export type RecoverResult = {
	whole?: false;
	/** The damaged data file that was read. */
	file: string;
	/** The fresh journal's folder (`<data dir>/journal`). */
	journal: string;
	/** Where the old journal folder is kept. */
	kept: string;
	events: number;
	/** Events copied without their steps (those could not be read). */
	withoutSteps: string[];
	/** Every id kept in the fresh journal: the events copied and those known only by their ids. */
	ids: number;
	/** Ids whose events could not be read (their bodies are gone): kept as exactly-once ids. */
	unreadable: string[];
	/** Events skipped because their record is damaged (it fails its checksum or no longer decodes): ids kept. */
	damaged: string[];
	/** The events known to have been in the journal: copied, damaged or unreadable (the M of "N of M"). */
	known: number;
	/** How each reading pass that did not finish ended (damage LMDB ran into). */
	failures: string[];
	/** The meta pages were lost and new ones were written into a copy to read it. */
	newMetaPages: boolean;
	/** What only the page scan found (LMDB could not read the file to its end): events and ids. */
	scanned: {events: number; ids: number};
};

const idsKept = (found: Salvage) => new Set([...found.seen.keys(), ...idsOf(found)]).size;

/** Writes in batches of this many records, each awaited (one commit each). */
const batch = 1000;

function stampOf(now: Date): string {
	return now.toISOString().replaceAll(':', '-').replace(/\.\d+Z$/, 'Z');
}

function requireWritable(directory: string, folder: string): void {
	const cause = readOnlyCause(directory) ?? readOnlyCause(folder);
	if (cause) {
		throw journalError('journal-read-only', {directory, folder, ...(cause === 'file-system' ? {readOnlyFileSystem: true} : {})}, readOnlyText(folder, cause));
	}
}

async function writeFresh(stores: Stores, found: Salvage, nowMs: number): Promise<void> {
	let pending: Array<Promise<unknown>> = [];
	const settle = async (force = false) => {
		if (force || pending.length >= batch) {
			await Promise.all(pending);
			pending = [];
		}
	};

	let latest = nowMs;
	for (const {key, record, steps} of found.events.values()) {
		pending.push(writeEvent(stores, key, record), stores.seen.put(record.id, key[0]));
		if (record.status === 'received' || record.status === 'processing') {
			pending.push(stores.queue.put(key, true));
		}

		for (const [stepKey, step] of steps ?? []) {
			pending.push(stores.steps.put(stepKey, step));
		}

		latest = Math.max(latest, key[0] + 1);
		await settle();
	}

	for (const [id, ms] of found.seen) {
		pending.push(stores.seen.put(id, ms));
		await settle();
	}

	// Every copied event has its id in the index: nothing before now lacks one.
	pending.push(stores.marks.put('unindexed-from', latest));
	await settle(true);
}

const idsOf = (found: Salvage) => new Set([...found.events.values()].map(event => event.record.id));

/**
 * Adds what the page scan found and the reading children did not: events (LMDB's own reading wins
 * where both found one), exactly-once ids, ids named only by keys (received at `nowMs` when no key
 * says when) and damaged records. Returns how many events and ids it added.
 */
function merge(found: Salvage, scan: PageScan, nowMs: number): {events: number; ids: number} {
	const read = idsOf(found);
	let events = 0;
	for (const event of scan.events.values()) {
		if (!read.has(event.record.id)) {
			found.events.set(`${event.key[0]}\u0000${event.key[1]}`, event);
			read.add(event.record.id);
			events++;
		}
	}

	let ids = 0;
	const add = (id: string, ms: number) => {
		if (!found.seen.has(id)) {
			found.seen.set(id, ms);
			ids += read.has(id) ? 0 : 1;
		}
	};

	for (const [id, ms] of scan.seen) {
		add(id, ms);
	}

	for (const [id, ms] of scan.keyIds) {
		add(id, ms ?? nowMs);
	}

	for (const [id, key] of scan.damaged) {
		if (!found.damaged.has(id)) {
			found.damaged.set(id, {key, reason: 'it fails its checksum or no longer decodes'});
		}
	}

	return {events, ids};
}

/**
 * The damaged records' ids join the exactly-once ids (unless another copy was read whole), and
 * the ids whose events were not read are the unreadable ones (a journal read to its end has none
 * but those retention dropped, which are not counted).
 */
function settle(found: Salvage): void {
	const read = idsOf(found);
	for (const [id, {key}] of found.damaged) {
		if (read.has(id)) {
			found.damaged.delete(id);
		} else if (!found.seen.has(id)) {
			found.seen.set(id, key[0]);
		}
	}

	found.unreadable = found.complete ? [] : [...found.seen.keys()].filter(id => !read.has(id) && !found.damaged.has(id));
}

/** Whether the journal needs nothing: read whole, nothing damaged, and its free-page list takes a write. */
async function isWhole(found: Salvage, folder: string, directory: string): Promise<boolean> {
	if (!found.complete || found.damaged.size > 0) {
		return false;
	}

	try {
		checkJournal(folder, directory);
		await verifyJournal(folder, directory, true);
		return true;
	} catch (error) {
		if (error instanceof JournalError && error.code === 'journal-damaged') {
			return false;
		}

		throw error;
	}
}

/** A journal that is missing, read-only, in use, or whose file is missing or empty is refused before anything is touched. */
async function refuseToRecover(directory: string, folder: string, unrecoverable: (reason: string) => Error): Promise<void> {
	if (!existsSync(folder)) {
		throw journalError('journal-missing', {directory}, `no event journal in ${directory}`);
	}

	requireWritable(directory, folder);
	const live = await liveHolders(folder);
	if (live.length > 0) {
		throw journalError('journal-in-use', {directory, pid: live[0] ?? 0}, `the journal in ${directory} is in use by process ${live[0] ?? 0}`);
	}

	const file = dataFile(folder);
	if (!existsSync(file) || statSync(file).size === 0) {
		throw unrecoverable(existsSync(file) ? 'it is empty' : 'it is missing');
	}
}

/** What the salvage kept and lost, as the result tells it. */
function salvaged(found: Salvage) {
	return {
		events: found.events.size,
		withoutSteps: [...found.events.values()].filter(event => event.steps === undefined).map(event => event.record.id),
		ids: idsKept(found),
		unreadable: found.unreadable,
		damaged: [...found.damaged.keys()],
		known: found.events.size + found.damaged.size + found.unreadable.length,
		failures: found.failures,
	};
}

/**
 * Recovers the journal of `directory` into a fresh one; a whole journal is left as it is
 * (`whole: true`, nothing changed).
 */
export async function recoverJournal(directory: string, now = new Date()): Promise<RecoverResult | WholeJournal> {
	folderAccess(directory, 'data');
	const folder = journalDirectory(directory);
	const file = dataFile(folder);
	const unrecoverable = (reason: string) => journalError('journal-unrecoverable', {directory, file, reason}, `nothing could be read from ${file}: ${reason}`);
	await refuseToRecover(directory, folder, unrecoverable);

	const stamp = stampOf(now);
	const fresh = path.join(directory, `journal.recovering-${stamp}`);
	const repair = path.join(directory, `journal.repair-${stamp}`);
	const kept = path.join(directory, `journal.damaged-${stamp}`);
	try {
		let source = folder;
		const newMetaPages = !metaPagesReadable(file);
		if (newMetaPages) {
			makePrivateDir(repair);
			if (!copyWithNewMeta(file, dataFile(repair))) {
				throw unrecoverable('its meta pages are lost and no page of its main database was found');
			}

			source = repair;
		}

		makePrivateDir(fresh);
		const stores = openStores(fresh);
		let found: Salvage;
		let scanned = {events: 0, ids: 0};
		try {
			// Values decoded as lmdb-js encodes them: by a database of the fresh journal.
			const decode = valueDecoder(stores);
			let scan: PageScan | undefined;
			const scanOnce = () => {
				scan ??= scanPages(dataFile(source), decode);
				return scan;
			};

			found = await salvage(source, () => new Set(scanOnce().events.keys()));
			if (!found.complete) {
				// LMDB could not read the file to its end (truncated, holes): its pages are read directly.
				scanned = merge(found, scanOnce(), now.getTime());
			}

			settle(found);
			if (found.events.size === 0 && found.seen.size === 0 && !found.complete) {
				throw unrecoverable(found.failures[0] ?? 'it could not be read');
			}

			if (!newMetaPages && await isWhole(found, folder, directory) && logReadsBack(folder)) {
				return {whole: true, file, journal: folder, events: found.events.size, ids: idsKept(found)};
			}

			addLogEvents(folder, found, decode);

			await writeFresh(stores, found, now.getTime());
		} finally {
			await stores.root.close();
		}

		renameSync(folder, kept);
		renameSync(fresh, folder);
		recordIdentity(folder);
		return {file, journal: folder, kept, ...salvaged(found), newMetaPages, scanned};
	} finally {
		rmSync(repair, {recursive: true, force: true});
		rmSync(fresh, {recursive: true, force: true});
	}
}
