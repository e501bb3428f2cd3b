/**
 * The journal reader's child program (reader.ts forks it): opens the journal read-only and reports
 * each record as it goes, one frame per message on stdout (4 bytes of length, then the message in
 * V8's serialization), written synchronously so a frame the parent got was complete when the
 * child died. Its input — the journal folder and the task — comes as one JSON object on stdin.
 * Exit 0 after `end`; 3 after an error lmdb threw (sent as an `error` message first).
 */
import {readFileSync, writeSync} from 'node:fs';
import process from 'node:process';
import {serialize} from 'node:v8';
import {open, type Database, type RootDatabase} from 'lmdb';
import {privateFileMode} from '../../private-files.js';
import type {ReaderMessage, ReaderTask} from './reader.js';
import type {StoredRecord} from './records/record-codec.js';

type Key = [number, string] | string;

function send(message: ReaderMessage | {t: 'end'}): void {
	const body = serialize(message);
	const frame = Buffer.alloc(4 + body.length);
	frame.writeUInt32LE(body.length, 0);
	body.copy(frame, 4);
	let offset = 0;
	while (offset < frame.length) {
		try {
			offset += writeSync(1, frame, offset);
		} catch (error) {
			if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') {
				throw error;
			}
		}
	}
}

function messageOf(error: unknown): string {
	return String((error as Error | undefined)?.message ?? error);
}

const highest = Number.MAX_SAFE_INTEGER;

function sendSteps(steps: Database, id: string): void {
	const entries: Array<[unknown, unknown]> = [];
	for (const {key, value} of steps.getRange({start: [id, 0, 0], end: [id, highest]})) {
		entries.push([key, value]);
	}

	send({t: 'steps', id, entries} as ReaderMessage);
}

function countEntries(database: Database, name: string): number {
	let count = 0;
	for (const entry of database.getRange({})) {
		if (entry.value === undefined) {
			throw new Error(`an entry of ${name} has no value`);
		}

		count++;
	}

	return count;
}

/**
 * Every event's value, read one key at a time: a value that no longer decodes is one damaged
 * record (refused with its id when read), not a damaged journal.
 */
function countEvents(database: Database): number {
	let count = 0;
	for (const key of database.getKeys({})) {
		try {
			database.get(key);
		} catch {
			// Counted all the same: the record is refused by every read of it.
		}

		count++;
	}

	return count;
}

/** Counts every entry of every store; with `write`, also allocates pages in a write it aborts. */
function verify(root: RootDatabase, folder: string, write: boolean): void {
	const counts: Record<string, number> = {};
	for (const name of [...root.getKeys({})]) {
		if (typeof name !== 'string') {
			continue;
		}

		const database = root.openDB({name, useVersions: name === 'claims'});
		counts[name] = name === 'events' ? countEvents(database) : countEntries(database, name);
		// A damaged branch page can end a walk early without any value failing to read: the
		// database's own count of entries (kept apart from its pages) says so.
		const {entryCount} = database.getStats() as {entryCount: number};
		if (counts[name] !== entryCount) {
			throw new Error(`the database ${name} walks to ${String(counts[name])} of the ${String(entryCount)} entries it counts`);
		}
	}

	if (write) {
		// A write reads the free-page list, which no read touches: allocate pages in a write
		// transaction and abort it, so the file is left as it was.
		void root.close();
		// lmdb-js reads `permissionsMode` (the mode of files it makes); its types omit it.
		const privateFiles: {permissionsMode: number} = {permissionsMode: privateFileMode};
		const writer = open({path: folder, maxDbs: 8, noSubdir: false, overlappingSync: false, ...privateFiles});
		const meta = writer.openDB({name: 'meta'});
		const abort = new Error('abort');
		try {
			writer.transactionSync(() => {
				void meta.put('\u0000probe', Buffer.alloc(256 * 1024));
				for (let index = 0; index < 64; index++) {
					void meta.put(`\u0000probe${index}`, Buffer.alloc(1000));
				}

				throw abort;
			});
		} catch (error) {
			if (error !== abort) {
				throw error;
			}
		}
	}

	send({t: 'counts', counts});
}

function events(root: RootDatabase, task: Extract<ReaderTask, {t: 'events'}>): void {
	const store = root.openDB({name: 'events'});
	const steps = root.openDB({name: 'steps'});
	const after = task.after as Key | undefined;
	const range = {...(task.reverse ? {reverse: true} : {}), ...(after ? {[task.reverse ? 'end' : 'start']: after} : {})};
	// Keys first, then each value: a value that no longer decodes is sent as damaged, and the
	// events after it are still read.
	for (const key of store.getKeys(range)) {
		const time = key as [number, string];
		if (after && !task.reverse && Array.isArray(after) && time[0] === after[0] && time[1] === after[1]) {
			continue;
		}

		let value: unknown;
		try {
			value = store.get(key);
		} catch (error) {
			send({t: 'damaged', key: time, message: messageOf(error)});
			continue;
		}

		send({t: 'event', key: time, value: value as StoredRecord});
		sendSteps(steps, time[1]);
	}
}

function seen(root: RootDatabase, reverse: boolean): void {
	let entries: Array<[string, number]> = [];
	for (const {key, value} of root.openDB({name: 'seen'}).getRange(reverse ? {reverse: true} : {})) {
		entries.push([key as string, value as number]);
		if (entries.length >= 100) {
			send({t: 'seen', entries});
			entries = [];
		}
	}

	send({t: 'seen', entries});
}

function main(): void {
	const {folder, task} = JSON.parse(readFileSync(0, 'utf8')) as {folder: string; task: ReaderTask};
	const root = open({path: folder, maxDbs: 8, noSubdir: false, readOnly: true});
	switch (task.t) {
		case 'verify': {
			verify(root, folder, task.write);
			break;
		}

		case 'events': {
			events(root, task);
			break;
		}

		case 'seen': {
			seen(root, task.reverse);
			break;
		}

	}

	send({t: 'end'});
}

try {
	main();
	process.exit(0);
} catch (error) {
	send({t: 'error', message: messageOf(error)});
	process.exit(3);
}
