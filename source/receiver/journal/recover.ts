/**
 * `events recover`: copies every readable event of a journal (damaged or not), with its steps and
 * state, and the exactly-once index into a fresh journal, and keeps the old one beside it as
 * `journal.damaged-<time>` in the data directory. The old file is only ever read, in child
 * processes (salvage.ts); when its meta pages are lost, from a copy with new ones (meta-rebuild.ts).
 * Refused while a process has the journal open (a serve or a replay: its holder socket accepts).
 */
import {existsSync, renameSync, rmSync, statSync} from 'node:fs';
import path from 'node:path';
import {journalError} from './errors.js';
import {metaPagesReadable, recordIdentity} from './integrity.js';
import {liveHolders} from './liveness.js';
import {journalDirectory} from './location.js';
import {copyWithNewMeta} from './meta-rebuild.js';
import {scanPages, type PageScan} from './page-scan.js';
import {salvage, type Salvage} from './salvage.js';
import {dataFile, openStores, writeEvent, type Stores} from './store.js';
import {readOnlyCause, readOnlyText} from './writable.js';
import {makePrivateDir} from '../../private-files.js';
import {folderAccess} from '../../private-folder.js';

export type RecoverResult = {
	/** The damaged data file that was read. */
	file: string;
	/** The fresh journal's folder (`<data dir>/journal`). */
	journal: string;
	/** Where the old journal folder is kept. */
	kept: string;
	events: number;
	/** Events copied without their steps (those could not be read). */
	withoutSteps: string[];
	ids: number;
	/** Ids whose events could not be read. */
	unreadable: string[];
	/** How each reading pass that did not finish ended (damage LMDB ran into). */
	failures: string[];
	/** The meta pages were lost and new ones were written into a copy to read it. */
	newMetaPages: boolean;
	/** What only the page scan found (LMDB could not read the file to its end): events and ids. */
	scanned: {events: number; ids: number};
};

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

/**
 * Adds what the page scan found and the reading children did not: events (LMDB's own reading wins
 * where both found one) and exactly-once ids. Returns how many of each it added.
 */
function merge(found: Salvage, scan: PageScan): {events: number; ids: number} {
	const read = new Set([...found.events.values()].map(event => event.record.id));
	let events = 0;
	for (const event of scan.events.values()) {
		if (!read.has(event.record.id)) {
			found.events.set(`${event.key[0]}\u0000${event.key[1]}`, event);
			read.add(event.record.id);
			events++;
		}
	}

	let ids = 0;
	for (const [id, ms] of scan.seen) {
		if (!found.seen.has(id)) {
			found.seen.set(id, ms);
			ids++;
		}
	}

	// Every id the index names whose event neither reading found (or that was pruned earlier).
	found.unreadable = [...found.seen.keys()].filter(id => !read.has(id));
	return {events, ids};
}

export async function recoverJournal(directory: string, now = new Date()): Promise<RecoverResult> {
	folderAccess(directory, 'data');
	const folder = journalDirectory(directory);
	const file = dataFile(folder);
	if (!existsSync(folder)) {
		throw journalError('journal-missing', {directory}, `no event journal in ${directory}`);
	}

	requireWritable(directory, folder);
	const live = await liveHolders(folder);
	if (live.length > 0) {
		throw journalError('journal-in-use', {directory, pid: live[0] ?? 0}, `the journal in ${directory} is in use by process ${live[0] ?? 0}`);
	}

	const unrecoverable = (reason: string) => journalError('journal-unrecoverable', {directory, file, reason}, `nothing could be read from ${file}: ${reason}`);
	if (!existsSync(file) || statSync(file).size === 0) {
		throw unrecoverable(existsSync(file) ? 'it is empty' : 'it is missing');
	}

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
			const decode = (bytes: Buffer): unknown => (stores.root as unknown as {decoder: {decode(bytes: Buffer): unknown}}).decoder.decode(bytes);
			let scan: PageScan | undefined;
			const scanOnce = () => {
				scan ??= scanPages(dataFile(source), decode);
				return scan;
			};

			found = await salvage(source, () => new Set(scanOnce().events.keys()));
			if (!found.complete) {
				// LMDB could not read the file to its end (truncated, holes): its pages are read directly.
				scanned = merge(found, scanOnce());
			}

			if (found.events.size === 0 && found.seen.size === 0 && !found.complete) {
				throw unrecoverable(found.failures[0] ?? 'it could not be read');
			}

			await writeFresh(stores, found, now.getTime());
		} finally {
			await stores.root.close();
		}

		renameSync(folder, kept);
		renameSync(fresh, folder);
		recordIdentity(folder);
		return {
			file,
			journal: folder,
			kept,
			events: found.events.size,
			withoutSteps: [...found.events.values()].filter(event => event.steps === undefined).map(event => event.record.id),
			ids: new Set([...found.seen.keys(), ...[...found.events.values()].map(event => event.record.id)]).size,
			unreadable: found.unreadable,
			failures: found.failures,
			newMetaPages,
			scanned,
		};
	} finally {
		rmSync(repair, {recursive: true, force: true});
		rmSync(fresh, {recursive: true, force: true});
	}
}
