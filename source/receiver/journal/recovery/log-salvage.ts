/**
 * `events recover` and the write-ahead log (wal/): the events a writer acknowledged into the log
 * and had not yet moved into LMDB are carried into the fresh journal with the salvage's own.
 *
 * The old journal's `wal-applied` number is not read (its file is damaged, and only children read
 * it): moves go in order of the entries' numbers, so the highest number among the entries whose
 * events the salvage found (or whose ids it kept) stands in for it, and the entries above it that
 * it did not find are the ones LMDB never held. An entry whose own event turned out damaged in
 * LMDB is taken from the log too.
 */
import {existsSync, readFileSync} from 'node:fs';
import {fromStored} from '../records/record-codec.js';
import type {TimeKey} from '../records/shapes.js';
import {openStores} from '../store.js';
import {type DecodeRecord, readLog} from '../wal/entries.js';
import {logFile, unappliedEntries} from '../wal/open.js';
import type {Salvage} from './salvage.js';

/**
 * Whether the log of a journal read whole (verified by then) holds every entry LMDB does not: if
 * so, `serve` moves them in as it opens and there is nothing to recover.
 */
export function logReadsBack(folder: string): boolean {
	if (!existsSync(logFile(folder))) {
		return true;
	}

	const stores = openStores(folder, {readOnly: true});
	try {
		return unappliedEntries(stores, folder).missing.length === 0;
	} finally {
		void stores.root.close();
	}
}

/** Adds the log's events LMDB never held (or holds damaged) to `found` (after `settle`). */
export function addLogEvents(folder: string, found: Salvage, decode: DecodeRecord): void {
	const file = logFile(folder);
	if (!existsSync(file)) {
		return;
	}

	const {entries} = readLog(readFileSync(file), 0, decode);
	const ids = new Set<string>();
	for (const event of found.events.values()) {
		ids.add(event.record.id);
	}

	let applied = 0;
	for (const entry of entries) {
		if (ids.has(entry.id) || found.seen.has(entry.id)) {
			applied = Math.max(applied, entry.seq);
		}
	}

	for (const entry of entries) {
		// Not read from LMDB, and either damaged there or never moved in (above the moves' mark, its id unknown).
		if (ids.has(entry.id) || !(found.damaged.has(entry.id) || (entry.seq > applied && !found.seen.has(entry.id)))) {
			continue;
		}

		const key: TimeKey = [entry.ms, entry.id];
		try {
			found.events.set(`${entry.ms}\u0000${entry.id}`, {key, record: fromStored(entry.tuple, key), steps: []});
			found.damaged.delete(entry.id);
			ids.add(entry.id);
		} catch {
			// The entry read back but its record fails its own checksum: left out.
		}
	}

	found.unreadable = found.unreadable.filter(id => !ids.has(id));
}
