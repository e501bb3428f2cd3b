/**
 * The exactly-once index's mark when writes fail: over stores whose commits can be made to fail
 * (each write fails or succeeds as one LMDB commit would), a crash after a failed commit must
 * leave every stored event findable by readers and known to the next serve.
 */
import {describe, expect, it} from 'vitest';
import {IdIndex} from '../../../source/receiver/journal/records/id-index.js';
import type {Stores} from '../../../source/receiver/journal/store.js';

type Key = string | [number, string];

function database(state: {failing: boolean}) {
	const entries = new Map<string, unknown>();
	return {
		entries,
		get: (key: Key) => entries.get(JSON.stringify(key)),
		async put(key: Key, value: unknown) {
			if (state.failing) {
				throw new Error('commit failed');
			}

			entries.set(JSON.stringify(key), value);
			return Promise.resolve(true);
		},
		getKeys({start}: {start?: [number, string]} = {}) {
			return [...entries.keys()]
				.map(key => JSON.parse(key) as [number, string])
				.sort((a, b) => a[0] - b[0] || a[1].localeCompare(b[1]))
				.filter(key => start === undefined || key[0] >= start[0]);
		},
	};
}

function fakeStores(mark: number) {
	const state = {failing: false};
	const stores = {seen: database(state), marks: database(state), events: database(state)};
	stores.marks.entries.set(JSON.stringify('unindexed-from'), mark);
	return {state, stores, asStores: stores as unknown as Stores};
}

/** What `accept` does: the event's write, then the index told in the same turn. */
async function accept(fake: ReturnType<typeof fakeStores>, index: IdIndex, id: string, ms: number): Promise<void> {
	const stored = fake.stores.events.put([ms, id], {id});
	const entry = index.add(id, ms, stored);
	await stored.then(() => {
		index.settle(entry, true);
	}, () => {
		index.settle(entry, false);
	});
}

/** After a crash: the next serve knows `id` as delivered, and a reader finds its event. */
function survives(fake: ReturnType<typeof fakeStores>, id: string): {known: boolean; found: boolean} {
	const next = new IdIndex(fake.asStores, true);
	return {known: next.pendingOf(id) !== undefined || next.indexed(id), found: new IdIndex(fake.asStores, false).locate(id) !== undefined};
}

describe('the exactly-once index when a commit fails', () => {
	it('an event keyed below the mark whose commit failed does not stop a later one from lowering it', async () => {
		const fake = fakeStores(1000);
		const index = new IdIndex(fake.asStores, true);
		fake.state.failing = true;
		await accept(fake, index, 'evt_a', 500);
		fake.state.failing = false;
		await accept(fake, index, 'evt_b', 700);
		expect(survives(fake, 'evt_b')).toEqual({known: true, found: true});
		expect(survives(fake, 'evt_a')).toEqual({known: false, found: false});
	});

	it('a failed batch leaves the mark where it was, and a later event never moves it above what is unindexed', async () => {
		const fake = fakeStores(100);
		const index = new IdIndex(fake.asStores, true);
		await accept(fake, index, 'evt_c', 100);
		await accept(fake, index, 'evt_d', 200);
		fake.state.failing = true;
		await index.flush();
		fake.state.failing = false;
		await accept(fake, index, 'evt_e', 150);
		for (const id of ['evt_c', 'evt_d', 'evt_e']) {
			expect(survives(fake, id)).toEqual({known: true, found: true});
		}

		// The next batch indexes all three and moves the mark past them.
		await index.flush();
		expect(['evt_c', 'evt_d', 'evt_e'].every(id => index.indexed(id))).toBe(true);
		expect(fake.stores.marks.get('unindexed-from')).toBe(200);
	});
});
