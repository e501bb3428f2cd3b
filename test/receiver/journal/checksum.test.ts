/**
 * The journal notices damage it stores: every event record carries a checksum (record-codec.ts)
 * that every read checks. Bytes changed inside values that still decode — a letter of a body, a
 * digit of a time, a status — were read as the event before (600 of 600 listed after eight
 * flips); now that event is refused with its id by `events list` and `events show`, skipped and
 * named by `events recover`, whose fresh journal keeps its id.
 */
import {closeSync, openSync, readdirSync, readFileSync, writeFileSync, writeSync} from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import listCommand from '../../../source/commands/events/list.js';
import recoverCommand from '../../../source/commands/events/recover.js';
import showCommand from '../../../source/commands/events/show.js';
import type {EventBackend, NewEvent} from '../../../source/receiver/store/backend.js';
import {JournalError, openJournal} from '../../../source/receiver/journal/index.js';
import {journalDirectory} from '../../../source/receiver/journal/open/location.js';
import {fromStored, toTuple, type EventTuple} from '../../../source/receiver/journal/records/record-codec.js';
import {openStores, readEvent, writeEvent} from '../../../source/receiver/journal/store.js';
import type {EventRecord, TimeKey} from '../../../source/receiver/journal/records/shapes.js';
import {runCommand} from '../../support/run-command.js';
import {waitFor} from '../../support/wait.js';
import {newEvent, tempDataDir} from './helpers.js';

const open: EventBackend[] = [];

afterEach(async () => {
	await Promise.all(open.splice(0).map(async backend => backend.close()));
});

const total = 60;

/** A closed journal of `total` events, each body carrying a marker of its own to find it in the file. */
async function journalOfEvents(): Promise<{directory: string; file: string; events: NewEvent[]}> {
	const directory = tempDataDir();
	const journal = await openJournal({directory, flushBeforeAck: false, verify: false});
	const events = Array.from({length: total}, (_, index) => newEvent({status: 'ignored', body: JSON.stringify({marker: `marker-${String(index).padStart(3, '0')}`, text: 'b'.repeat(200)})}));
	await Promise.all(events.map(async event => journal.accept(event)));
	await journal.close();
	return {directory, file: path.join(directory, 'journal', 'data.mdb'), events};
}

/**
 * Changes one byte `offset` bytes after each place `text` is in the file (a flip inside a value;
 * each place, since LMDB leaves older copies of a page in freed pages).
 */
function flipAfter(file: string, text: string, offset: number): void {
	const bytes = readFileSync(file);
	let at = bytes.indexOf(Buffer.from(text));
	expect(at, text).toBeGreaterThan(0);
	const fd = openSync(file, 'r+');
	try {
		while (at >= 0) {
			writeSync(fd, Buffer.from([bytes[at + offset] === 0x62 ? 0x63 : 0x62]), 0, 1, at + offset);
			at = bytes.indexOf(Buffer.from(text), at + 1);
		}
	} finally {
		closeSync(fd);
	}
}

const record = (overrides: Partial<EventRecord> = {}): EventRecord => {
	const event = newEvent();
	return {...event, updatedAt: event.receivedAt, attempts: 0, generation: 0, ...overrides};
};

describe('event record checksums', () => {
	it('refuses a record whose fields changed after it was written, naming its id', () => {
		const original = record({status: 'failed', error: 'the platform answered 500', attempts: 2, durationMs: 31});
		const key: TimeKey = [Date.parse(original.receivedAt), original.id];
		const tuple = toTuple(original, key);
		expect(fromStored(structuredClone(tuple), key)).toEqual({...original, bodyEncoding: undefined, note: undefined, finishedAt: undefined});
		const changes: Array<(copy: unknown[]) => void> = [
			copy => {
				copy[4] = `${String(copy[4])} `;
			},
			copy => {
				copy[12] = 'answered';
			},
			copy => {
				copy[18] = 3;
			},
			copy => {
				copy[6] = null;
			},
			copy => {
				copy[20] = Number(copy[20]) + 1;
			},
			copy => {
				copy.push(0);
			},
		];
		for (const change of changes) {
			const copy: unknown[] = structuredClone(tuple);
			change(copy);
			expect(() => fromStored(copy as typeof tuple, key)).toThrow(expect.objectContaining({code: 'journal-record-damaged', data: expect.objectContaining({id: original.id}) as unknown}) as Error);
		}

		// Under another key (its time or its id): not the record written there.
		expect(() => fromStored(structuredClone(tuple), [key[0] + 1, key[1]])).toThrow(expect.objectContaining({code: 'journal-record-damaged'}) as Error);
		expect(() => fromStored(structuredClone(tuple), [key[0], 'evt_other'])).toThrow(expect.objectContaining({code: 'journal-record-damaged'}) as Error);
	});

	it('reads a record of the release before checksums as it is, and checks it from its next write on', async () => {
		const stores = openStores(journalDirectory(tempDataDir()));
		try {
			const original = record({status: 'answered'});
			const key: TimeKey = [Date.parse(original.receivedAt), original.id];
			const written = toTuple(original, key);
			// As release 0.1.0 wrote it: the 20 fields without the checksum, and one changed since.
			await stores.events.put(key, [...written.slice(0, 4), 'changed', ...written.slice(5, 20)] as unknown as EventTuple);
			expect(readEvent(stores, key)?.record.body).toBe('changed');
			await writeEvent(stores, key, {...original, status: 'failed'});
			const rewritten = stores.events.get(key) as unknown[];
			expect(rewritten).toHaveLength(21);
			await stores.events.put(key, [...rewritten.slice(0, 4), 'changed again', ...rewritten.slice(5)] as unknown as EventTuple);
			expect(() => readEvent(stores, key)).toThrow(expect.objectContaining({code: 'journal-record-damaged'}) as Error);
		} finally {
			await stores.root.close();
		}
	});

	it('bytes changed in the journal file: list and show refuse those events by id, recover skips and names them and keeps their ids', async () => {
		const {directory, file, events} = await journalOfEvents();
		const damaged = [3, 17, 29, 41, 58];
		for (const index of damaged) {
			// A letter of the body: the value still decodes, only the checksum can tell.
			flipAfter(file, `marker-${String(index).padStart(3, '0')}`, 40);
		}

		const damagedIds = damaged.map(index => events[index]?.id ?? '');
		const list = await runCommand(listCommand, {flags: {dataDir: directory, limit: 1000, json: true}});
		expect(list.code, list.stderr).toBe(0);
		const lines = list.stdout.trim().split('\n').map(line => JSON.parse(line) as {type: string; id: string});
		expect(lines.filter(line => line.type === 'event').map(line => line.id).sort()).toEqual(events.map(event => event.id).filter(id => !damagedIds.includes(id)).sort());
		expect(lines.filter(line => line.type === 'unreadable').map(line => line.id).sort()).toEqual([...damagedIds].sort());
		const plain = await runCommand(listCommand, {flags: {dataDir: directory, limit: 1000}});
		expect(plain.code).toBe(0);
		const named = /Could not read 5 events, their records are damaged: ([^.]+)\. `platform-tui events recover` copies every other event into a fresh journal and keeps their ids\./.exec(plain.stderr);
		expect(named?.[1]?.split(', ').sort(), plain.stderr).toEqual([...damagedIds].sort());

		const shown = await runCommand(showCommand, {argv: [damagedIds[0] ?? ''], flags: {dataDir: directory}});
		expect(shown.code).toBe(1);
		expect(shown.stderr).toContain(`The journal's record of event ${damagedIds[0] ?? ''} (received `);
		expect(shown.stderr).toContain('is damaged: its checksum does not match its contents');

		const recovered = await runCommand(recoverCommand, {flags: {dataDir: directory, json: true}});
		expect(recovered.code, recovered.stderr).toBe(0);
		const line = JSON.parse(recovered.stdout.split('\n')[0] ?? '{}') as {type: string; events: number; known: number; ids: number; damaged: string[]};
		expect(line).toMatchObject({type: 'recovered', events: total - damaged.length, known: total, ids: total});
		expect([...line.damaged].sort()).toEqual([...damagedIds].sort());
		const fresh = await openJournal({directory});
		open.push(fresh);
		expect(await fresh.list({})).toHaveLength(total - damaged.length);
		for (const id of damagedIds) {
			expect(await fresh.accept(newEvent({id, status: 'ignored'}))).toBe('duplicate');
		}
	});

	it('eight random bytes changed in the data pages: no event is read with changed contents, each one left out is named', async () => {
		const {directory, file, events} = await journalOfEvents();
		const original = readFileSync(file);
		const byId = new Map(events.map(event => [event.id, event]));
		let seed = 7;
		const random = () => {
			seed = (seed * 16_807) % 2_147_483_647;
			return (seed - 1) / 2_147_483_646;
		};

		for (let run = 0; run < 4; run++) {
			const bytes = Buffer.from(original);
			for (let flip = 0; flip < 8; flip++) {
				// Past the two meta pages; a byte replaced by another value.
				const at = 8192 + Math.floor(random() * (bytes.length - 8192));
				bytes[at] = ((bytes[at] ?? 0) + 1 + Math.floor(random() * 255)) & 0xFF;
			}

			writeFileSync(file, bytes);
			// Damage LMDB itself trips on refuses the whole journal (faults.md); any other is per event.
			const journal = await openJournal({directory, mode: 'read'}).catch((error: unknown) => error);
			if (journal instanceof JournalError) {
				expect(journal.code).toBe('journal-damaged');
				continue;
			}

			const reader = journal as EventBackend;
			const unreadable: string[] = [];
			const refused = await reader.list({onUnreadable(id) {
				unreadable.push(id);
			}}).then(events => ({events}), (error: unknown) => ({error}));
			await reader.close();
			if ('error' in refused) {
				// A record whose format tag now reads as a later version's is refused as such, never guessed at.
				expect(refused.error).toMatchObject({code: 'journal-record-format'});
				continue;
			}

			const listed = refused.events;
			const changed = listed.filter(event => byId.get(event.id)?.body !== event.body || byId.get(event.id)?.receivedAt !== event.receivedAt || byId.get(event.id)?.status !== event.status);
			expect(changed.map(event => event.id)).toEqual([]);
			expect(listed.length + unreadable.length).toBe(total);
		}
	});

	it('a serve resuming a queued event whose record is damaged drops it from the queue instead of failing', async () => {
		const directory = tempDataDir();
		const setup = await openJournal({directory, flushBeforeAck: false, verify: false});
		const event = newEvent({body: JSON.stringify({marker: 'marker-queued', text: 'b'.repeat(200)})});
		await setup.accept(event);
		await setup.close();
		flipAfter(path.join(directory, 'journal', 'data.mdb'), 'marker-queued', 30);
		const journal = await openJournal({directory, verify: false});
		open.push(journal);
		let handled = 0;
		await journal.start(async () => {
			handled++;
			return Promise.resolve({status: 'answered' as const});
		}, {concurrency: 1});
		await waitFor(async () => (await journal.backlog?.())?.count, {until: count => count === 0, what: 'the damaged event out of the queue'});
		expect(handled).toBe(0);
		expect(await journal.health?.()).toEqual({ok: true});
	});
});

describe('events recover on a whole journal', () => {
	it('says there is nothing to recover and changes nothing', async () => {
		const {directory, events} = await journalOfEvents();
		const before = readFileSync(path.join(directory, 'journal', 'data.mdb'));
		const run = await runCommand(recoverCommand, {flags: {dataDir: directory}});
		expect(run.code, run.stderr).toBe(0);
		expect(run.stdout).toBe(`Nothing to recover: all ${events.length} events in ${path.join(directory, 'journal', 'data.mdb')} read whole, none fails its checksum, and it takes writes; nothing was changed.\n`);
		const json = await runCommand(recoverCommand, {flags: {dataDir: directory, json: true}});
		expect(JSON.parse(json.stdout.split('\n')[0] ?? '{}')).toEqual({type: 'nothing-to-recover', file: path.join(directory, 'journal', 'data.mdb'), journal: path.join(directory, 'journal'), events: events.length, ids: events.length});
		expect(readFileSync(path.join(directory, 'journal', 'data.mdb')).equals(before)).toBe(true);
		expect(readdirSync(directory)).toEqual(['journal']);
	});
});
