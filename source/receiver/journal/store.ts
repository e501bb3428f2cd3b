/**
 * The journal's LMDB layout: one environment in `<data dir>/journal`, seven named databases.
 *
 * - `seen`:   event id → received time (ms). The exactly-once record; kept for the retention age
 *             (at least 24 h) even when the count bound drops the event itself. Written in
 *             batches after the events themselves (id-index.ts).
 * - `marks`:  `unindexed-from` → the time from which events may still lack their `seen` entry.
 * - `events`: [received ms, id] → the event (raw body, headers, state; record-codec.ts). Time-
 *             ordered, so listing newest first and pruning oldest first are range reads.
 * - `queue`:  [received ms, id] → true while the event awaits or is in processing.
 * - `steps`:  [id, generation, n] → one recorded step; a replay starts a new generation.
 * - `claims`: event id → the process processing it (versioned: a claim is a conditional write).
 * - `meta`:   `owner` → the `serve` process owning the journal.
 */
import {existsSync, statSync} from 'node:fs';
import path from 'node:path';
import {open, type Database, type RootDatabase} from 'lmdb';
import {makePrivate, privateFileMode} from '../../private-files.js';
import type {StepRecord, StoredEvent} from '../store/backend.js';
import {nextAttemptOf} from '../answer/retry-schedule.js';
import type {Holder} from './open/liveness.js';
import {errorMessage} from '../../format/value.js';
import {JournalError} from './errors.js';
import {fromStored, recordDamaged, toTuple, type EventTuple, type StoredRecord} from './records/record-codec.js';
import type {EventRecord, StepKey, TimeKey} from './records/shapes.js';
import type {DiskSpace} from './open/space.js';

export type Stores = {
	directory: string;
	root: RootDatabase;
	seen: Database<number, string>;
	marks: Database<number, string>;
	events: Database<StoredRecord, TimeKey>;
	queue: Database<true, TimeKey>;
	steps: Database<StepRecord, StepKey>;
	claims: Database<Holder, string>;
	meta: Database<Holder, string>;
	/** The disk reserve every write is checked against (writers only). */
	space?: DiskSpace;
};

type Writes = Record<'put' | 'remove' | 'ifNoExists' | 'ifVersion', (...parameters: unknown[]) => Promise<boolean>>;

/**
 * Every write of `database` first asks the disk reserve (space.ts): refused, it rejects with
 * `DiskFullError` and LMDB never starts a commit the disk may not hold. Anything thrown becomes a
 * rejection, as from an async function; no async function, though: LMDB's own promise is given
 * back as it is (writes of one commit share it), not wrapped in one more per write.
 */
function guardWrites(database: unknown, space: DiskSpace): void {
	const writes = database as Writes;
	for (const name of ['put', 'remove', 'ifNoExists', 'ifVersion'] as const) {
		const original = writes[name];
		writes[name] = (...parameters: unknown[]) => {
			try {
				return space.allowsBookkeeping() ? original.apply(database, parameters) : Promise.reject(space.refused());
			} catch (error) {
				// eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what was thrown, as an async function rejects with it
				return Promise.reject(error);
			}
		};
	}
}

/**
 * The mode LMDB makes its files with (data.mdb, lock.mdb): 0600 from the first byte, as every file
 * of the data directory (private-files.ts). lmdb-js reads `permissionsMode`; its types omit it.
 */
export const privateFiles: {permissionsMode: number} = {permissionsMode: privateFileMode};

/** A journal's files left readable by others (an earlier version made them 0644) become 0600 when a writer opens it. */
function tightenFiles(directory: string): void {
	for (const file of [dataFile(directory), path.join(directory, 'lock.mdb')]) {
		try {
			if ((statSync(file).mode & 0o777) !== privateFileMode) {
				makePrivate(file);
			}
		} catch {
			// Missing, or not ours to change: the folder's own mode is what the status warns about.
		}
	}
}

/** lmdb-js's value encoder (msgpack) of a database; its types leave it out. */
type ValueCodec = {encode(value: unknown): Buffer; decode(bytes: Buffer): unknown};

/**
 * A stored tuple as the `events` database encodes it: the write-ahead log keeps these bytes, and a
 * move puts them as they are (`asBinary`). A slice of the encoder's buffer no later encoding writes
 * over (only lmdb-js's own puts reuse theirs).
 */
export function recordBytes(stores: Stores, tuple: EventTuple): Buffer {
	return (stores.events as unknown as {encoder: ValueCodec}).encoder.encode(tuple);
}

/** Reads a value as the journal's databases decode theirs (msgpack). */
export function valueDecoder(stores: Stores): (bytes: Buffer) => unknown {
	const codec = (stores.events as unknown as {decoder: ValueCodec}).decoder;
	return bytes => codec.decode(bytes);
}

/** Above any generation or step number, for range ends. */
const highest = Number.MAX_SAFE_INTEGER;

export function dataFile(directory: string): string {
	return path.join(directory, 'data.mdb');
}

export function journalExists(directory: string): boolean {
	return existsSync(dataFile(directory));
}

/**
 * Opened read-write, unless `readOnly` (a journal this user may not write, read by the `events`
 * commands): LMDB then opens the file and its lock file read-only, and the named databases must
 * exist already (a journal `serve` opened once has them all).
 * `flushBeforeAck` (default): each commit is flushed to disk before its writes resolve, with
 * LMDB's plain synchronous commit; lmdb-js's default "overlapping sync" measured slower here
 * (receiver bench: ~30% more CPU per event, half the throughput) for the same guarantee. Without it
 * (`noSync`), a commit resolves once the OS holds it: a process crash loses nothing, an OS crash
 * or power cut may lose what the OS had not yet written back.
 */
export function openStores(directory: string, options: {flushBeforeAck?: boolean; readOnly?: boolean; space?: DiskSpace} = {}): Stores {
	const root = open({path: directory, maxDbs: 8, noSubdir: false, ...privateFiles, ...(options.readOnly ? {readOnly: true} : {}), ...(options.flushBeforeAck === false ? {noSync: true} : {overlappingSync: false})});
	if (!options.readOnly) {
		tightenFiles(directory);
	}

	const named = <V, K extends string | number | TimeKey | StepKey>(name: string, useVersions = false): Database<V, K> => {
		const database = root.openDB<V, K>({name, useVersions}) as Database<V, K> | undefined;
		if (!database) {
			throw new Error(`the journal has no ${name} database`);
		}

		if (options.space) {
			guardWrites(database, options.space);
		}

		return database;
	};

	const {space} = options;
	if (space) {
		const transaction = root.transactionSync.bind(root);
		root.transactionSync = <T>(action: () => T, flags?: Parameters<typeof transaction>[1]): T => {
			if (!space.allowsBookkeeping()) {
				throw space.refused();
			}

			return transaction(action, flags);
		};
	}

	try {
		return {
			directory,
			...(space ? {space} : {}),
			root,
			seen: named<number, string>('seen'),
			marks: named<number, string>('marks'),
			events: named<StoredRecord, TimeKey>('events'),
			queue: named<true, TimeKey>('queue'),
			steps: named<StepRecord, StepKey>('steps'),
			claims: named<Holder, string>('claims', true),
			meta: named<Holder, string>('meta'),
		};
	} catch (error) {
		void root.close();
		throw error;
	}
}

/**
 * The record under `key`, when the journal still holds it. Throws `journal-record-damaged` naming
 * its id when the stored value no longer decodes or fails its checksum (record-codec.ts).
 */
export function readEvent(stores: Stores, key: TimeKey | undefined): {key: TimeKey; record: EventRecord} | undefined {
	if (!key) {
		return undefined;
	}

	let stored: StoredRecord | undefined;
	try {
		stored = stores.events.get(key);
	} catch (error) {
		throw recordDamaged(key, `it no longer decodes (${errorMessage(error)})`);
	}

	return stored === undefined ? undefined : {key, record: fromStored(stored, key)};
}

export type ReadOutcome = {key: TimeKey; record: EventRecord} | {key: TimeKey; damaged: JournalError<'journal-record-damaged'>};

/**
 * The events of a range of keys, each read on its own (keys first, then each value): a damaged
 * record is given as its refusal, and the ones after it are still read.
 */
export function* eventsInRange(stores: Stores, range: {reverse?: boolean; start?: TimeKey; end?: TimeKey}): Generator<ReadOutcome> {
	for (const key of stores.events.getKeys(range)) {
		let found: {key: TimeKey; record: EventRecord} | undefined;
		try {
			found = readEvent(stores, key);
		} catch (error) {
			if (error instanceof JournalError && error.code === 'journal-record-damaged') {
				yield {key, damaged: error as JournalError<'journal-record-damaged'>};
				continue;
			}

			throw error;
		}

		// Listed but not found under its own key: the key's bytes changed, so it sorts out of place.
		yield found ?? {key, damaged: recordDamaged(key, 'its key no longer finds it (the key is damaged)')};
	}
}

/** Writes the record under `key` (in the current batch of writes); resolves once committed. */
export async function writeEvent(stores: Stores, key: TimeKey, record: EventRecord): Promise<boolean> {
	return stores.events.put(key, toTuple(record, key));
}

export function stepsOf(stores: Stores, id: string, generation: number): StepRecord[] {
	return Array.from(stores.steps.getRange({start: [id, generation, 0], end: [id, generation + 1]}), entry => entry.value);
}

/** Queues the deletion of every step of `id` (all generations) in the current write batch. */
export function removeSteps(stores: Stores, id: string): void {
	for (const key of stores.steps.getKeys({start: [id, 0, 0], end: [id, highest]})) {
		stores.steps.remove(key).catch(() => undefined);
	}
}

export function toStored(record: EventRecord, steps: StepRecord[]): StoredEvent {
	const event: Partial<EventRecord> & Omit<EventRecord, 'generation'> = {...record};
	delete event.generation;
	const next = record.status === 'waiting' ? nextAttemptOf(steps) : undefined;
	return {...event, steps, ...(next === undefined ? {} : {nextAttemptAt: next})};
}

/** Bytes the journal takes on disk (the data file's allocated blocks). */
export function diskBytes(directory: string): number {
	try {
		const stats = statSync(dataFile(directory));
		return stats.blocks > 0 ? Math.min(stats.size, stats.blocks * 512) : stats.size;
	} catch {
		return 0;
	}
}
