import {readFileSync, statSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {JournalError, journalDirectory, openJournal} from '../../../source/receiver/journal/index.js';
import {logFile} from '../../../source/receiver/journal/wal/open.js';
import {recoverJournal} from '../../../source/receiver/journal/recovery/recover.js';
import {encodeEntry, headerBytes} from '../../../source/receiver/journal/wal/entries.js';
import {newEventTuple} from '../../../source/receiver/journal/records/record-codec.js';
import {openStores, recordBytes} from '../../../source/receiver/journal/store.js';
import {waitFor} from '../../support/wait.js';
import {newEvent, newId, openedPerTest, startHolder, tempDataDir} from './helpers.js';

const {journal, holders} = openedPerTest();

/** A writer killed with `ids` acknowledged: the first moved into LMDB, the others in the write-ahead log only. */
async function killedAfterAcks(directory: string, ids: string[]): Promise<void> {
	const holder = await startHolder(directory, 'acked', ids.join(','));
	holders.push(holder);
	await holder.kill();
}

describe('journal: the write-ahead log', () => {
	it('a process killed with events acknowledged but not yet in LMDB: events recover finds nothing to do, and the next serve moves them in before it accepts anything and processes the queued one', async () => {
		const directory = tempDataDir();
		const ids = [newId(), newId(), newId()];
		const holder = await startHolder(directory, 'acked', ids.join(','));
		holders.push(holder);
		const reader = await journal(directory, {mode: 'read'});
		expect((await reader.get(ids[0] ?? ''))?.id).toBe(ids[0]);
		// Acknowledged, in the log only.
		expect(await reader.get(ids[1] ?? '')).toBeUndefined();
		await holder.kill();
		// Nothing for events recover to do: the log reads back, and the next open moves it in.
		expect(await recoverJournal(directory)).toMatchObject({whole: true});

		const next = await journal(directory);
		expect(await next.accept(newEvent({id: ids[1] ?? '', status: 'ignored'}))).toBe('duplicate');
		const processed: string[] = [];
		await next.start(async job => {
			processed.push(job.event.id);
			return Promise.resolve({status: 'answered'});
		}, {concurrency: 1});
		await waitFor(() => processed.includes(ids[2] ?? ''));
		expect(processed).toEqual([ids[2]]);
		expect((await next.stats()).count).toBe(3);
		for (const id of ids) {
			expect((await reader.get(id))?.id).toBe(id);
		}
	});

	it('an event keyed before the exactly-once mark (its clock set back), left in the log only: the next open indexes it', async () => {
		const directory = tempDataDir();
		const first = await journal(directory);
		// Sequence number 1; the close writes the index's mark at its time.
		await first.accept(newEvent({status: 'ignored'}));
		await first.close();
		const id = newId();
		const ms = Date.now() - 3_600_000;
		// Its record in the log as the writer encodes it (LMDB's msgpack), read back by a fresh open;
		// a header beyond the usual ones is an object in the record.
		const headers = {'x-platform-signature': 'abcdef0123456789', 'x-platform-id': id, 'x-forwarded-for': '10.0.0.7'};
		const stores = openStores(journalDirectory(directory));
		const record = recordBytes(stores, newEventTuple(newEvent({id, status: 'ignored', receivedAt: new Date(ms).toISOString(), headers}), ms));
		await stores.root.close();
		writeFileSync(logFile(journalDirectory(directory)), encodeEntry(2, ms, false, record));
		const next = await journal(directory);
		expect(await next.accept(newEvent({id, status: 'ignored'}))).toBe('duplicate');
		expect(await next.get(id)).toMatchObject({receivedAt: new Date(ms).toISOString(), headers});
	});

	it('a redelivery before the move is a duplicate at once, and reads in the writing process see every event acknowledged before them', async () => {
		const backend = await journal(tempDataDir(), {writeAhead: {applyEveryMs: 3_600_000}});
		const events = Array.from({length: 5}, () => newEvent({status: 'ignored'}));
		for (const event of events) {
			expect(await backend.accept(event)).toBe('stored');
		}

		// A redelivery of an event not moved in yet is a duplicate at once: the first is on disk.
		expect(await backend.accept({...events[4] ?? newEvent()})).toBe('duplicate');
		expect((await backend.list({limit: 10})).map(event => event.id).sort()).toEqual(events.map(event => event.id).sort());
		expect((await backend.get(events[4]?.id ?? ''))?.body).toBe(events[4]?.body);
	});

	it('starts a new lap once LMDB holds every entry, and stays within its size under a stream of deliveries', async () => {
		const directory = tempDataDir();
		const backend = await journal(directory, {writeAhead: {applyEveryMs: 1, lapBytes: 8192, maxBytes: 32_768}});
		const body = JSON.stringify({text: 'x'.repeat(1500)});
		// 20 groups of 10 deliveries: one group is about 18 KiB.
		for (let group = 0; group < 20; group++) {
			const accepted = await Promise.all(Array.from({length: 10}, async () => backend.accept(newEvent({body, status: 'ignored'}))));
			expect(accepted.every(result => result === 'stored')).toBe(true);
		}

		expect((await backend.stats()).count).toBe(200);
		// 200 entries of about 1.8 KiB went through a log of 32 KiB.
		expect(statSync(logFile(journalDirectory(directory))).size).toBeLessThanOrEqual(32 * 1024);
		await backend.close();
		const again = await journal(directory);
		expect((await again.stats()).count).toBe(200);
	});

	it('SIGKILLed while acknowledging without pause through laps of a small log: every acknowledged event is there when the journal opens again', async () => {
		const directory = tempDataDir();
		const holder = await startHolder(directory, 'stream');
		holders.push(holder);
		const acknowledged = () => holder.output().split('\n').filter(line => line.startsWith('ack ')).flatMap(line => line.slice(4).split(','));
		// About 60 laps of the 16 KiB log.
		await waitFor(() => acknowledged().length >= 2000, {timeoutMs: 60_000});
		await holder.kill();
		const ids = acknowledged();
		const next = await journal(directory);
		const stored = new Set((await next.list({limit: ids.length + 100})).map(event => event.id));
		expect(ids.filter(id => !stored.has(id))).toEqual([]);
	});

	it('refuses to open, naming the log, when an entry it was given no longer reads back; events recover carries the entries that read', async () => {
		const directory = tempDataDir();
		const ids = [newId(), newId(), newId()];
		await killedAfterAcks(directory, ids);
		const file = logFile(journalDirectory(directory));
		const bytes = readFileSync(file);
		// The second entry (the first the log alone holds) loses a byte of its payload.
		const second = bytes.indexOf('PTW2', bytes.indexOf('PTW2') + 1);
		bytes[second + headerBytes + 3] = (bytes[second + headerBytes + 3] ?? 0) ^ 0x01;
		writeFileSync(file, bytes);
		const refusal = await openJournal({directory}).catch((error: unknown) => error);
		expect(refusal).toBeInstanceOf(JournalError);
		expect(refusal).toMatchObject({code: 'journal-damaged', data: {file}});
		expect((refusal as Error).message).toContain(path.basename(file));

		const recovered = await recoverJournal(directory);
		expect(recovered.whole).not.toBe(true);
		expect(recovered.events).toBe(2);
		const fresh = await journal(directory);
		expect((await fresh.list({limit: 10})).map(event => event.id).sort()).toEqual([ids[0], ids[2]].sort());
	});
});
