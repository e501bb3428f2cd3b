/**
 * The writer's exactly-once filter is rebuilt once retention has removed most of the ids it took
 * in, over a real LMDB journal: the ids still in `seen` and those waiting stay known, the dropped
 * ones leave it, and nothing is rebuilt while most ids are live.
 */
import {afterEach, describe, expect, it} from 'vitest';
import {IdIndex} from '../../../source/receiver/journal/records/id-index.js';
import {journalDirectory} from '../../../source/receiver/journal/open/location.js';
import {newEventTuple} from '../../../source/receiver/journal/records/record-codec.js';
import {openStores, type Stores} from '../../../source/receiver/journal/store.js';
import {newEvent, newId, tempDataDir} from './helpers.js';

const opened: Stores[] = [];

afterEach(async () => {
	await Promise.all(opened.splice(0).map(async stores => stores.root.close()));
});

function stores(): Stores {
	const opening = openStores(journalDirectory(tempDataDir()));
	opened.push(opening);
	return opening;
}

/** What `accept` does for a new id: the event's write, the index told in the same turn, settled on commit. */
async function accept(journal: Stores, index: IdIndex, id: string, ms: number): Promise<void> {
	const stored = journal.events.put([ms, id], newEventTuple(newEvent({id}), ms));
	const entry = index.add(id, ms, stored);
	await stored;
	index.settle(entry, true);
}

describe('the exactly-once filter after retention', () => {
	it('is rebuilt from the live ids once it took in twice as many, and keeps every live id', async () => {
		const journal = stores();
		const index = new IdIndex(journal, true);
		const ids = Array.from({length: 120}, newId);
		for (const [n, id] of ids.entries()) {
			await accept(journal, index, id, 1000 + n);
		}

		await index.flush();
		// One more accepted and not yet indexed: it must stay known through the rebuild.
		const waiting = newId();
		await accept(journal, index, waiting, 5000);
		expect(index.filterAdditions).toBe(121);
		// 60 of 120 ids still live (with the waiting one, 61): not yet twice as many taken in.
		for (const id of ids.slice(0, 60)) {
			await journal.seen.remove(id);
		}

		expect(index.refreshFilter(10)).toBe(false);
		// Retention drops 50 more: 11 live against 121 taken in.
		for (const id of ids.slice(60, 110)) {
			await journal.seen.remove(id);
		}

		expect(index.refreshFilter(10)).toBe(true);
		expect(index.filterAdditions).toBe(11);
		for (const id of ids.slice(110)) {
			expect(index.indexed(id)).toBe(true);
		}

		expect(index.pendingOf(waiting)).toBeDefined();
		expect(index.indexed(ids[0] ?? '')).toBe(false);
		// The waiting id reaches `seen` in the next batch and the rebuilt filter knows it there too.
		await index.flush();
		expect(index.pendingOf(waiting)).toBeUndefined();
		expect(index.indexed(waiting)).toBe(true);
	});

	it('is not rebuilt below its minimum, nor in a process that does not write the journal', async () => {
		const journal = stores();
		const writer = new IdIndex(journal, true);
		await accept(journal, writer, newId(), 1000);
		await writer.flush();
		await journal.seen.clearAsync();
		expect(writer.refreshFilter()).toBe(false);
		expect(new IdIndex(journal, false).refreshFilter(0)).toBe(false);
	});
});
