import {describe, expect, it} from 'vitest';
import {LogApplier, WaitingEvent} from '../../../source/receiver/journal/wal/apply.js';
import type {Stores} from '../../../source/receiver/journal/store.js';
import {asBinary} from 'lmdb';

/**
 * The writes a move makes, as LMDB's puts give them: every put of one turn resolves or rejects with
 * the commit, which is the `marks` put's (the last of the move). `failing` commits fail.
 */
function recordingStores(failing: () => boolean) {
	const commits: Array<{events: string[]; queued: string[]; applied: number}> = [];
	let current: {events: string[]; queued: string[]} = {events: [], queued: []};
	const stores = {
		events: {
			put(key: [number, string]) {
				current.events.push(key[1]);
				return Promise.resolve(true);
			},
		},
		queue: {
			put(key: [number, string]) {
				current.queued.push(key[1]);
				return Promise.resolve(true);
			},
		},
		marks: {
			put(_key: string, applied: number) {
				const commit = {...current, applied};
				current = {events: [], queued: []};
				if (failing()) {
					return Promise.reject(new Error('the disk is full'));
				}

				commits.push(commit);
				return Promise.resolve(true);
			},
		},
	};
	return {stores: stores as unknown as Stores, commits};
}

const waiting = (seq: number, queued = false) => new WaitingEvent(seq, [seq, `evt_${seq}`], asBinary(Buffer.from([0x90])), queued);

/** What the applier tells the journal: each move's sequence numbers, each failure; `until` waits for a count of moves. */
function heard(applier: LogApplier) {
	const told: number[][] = [];
	const failed: unknown[] = [];
	let wake: (() => void) | undefined;
	applier.listen({
		applied(events) {
			told.push(events.map(event => event.seq));
			wake?.();
		},
		failed(error) {
			failed.push(error);
		},
	});
	return {
		told,
		failed,
		async until(moves: number) {
			while (told.length < moves) {
				await new Promise<void>(resolve => {
					wake = resolve;
				});
			}
		},
	};
}

describe('the write-ahead log\'s moves into LMDB', () => {
	it('moves the events of a moment in one commit, with the highest sequence number, and tells the journal once', async () => {
		const {stores, commits} = recordingStores(() => false);
		const applier = new LogApplier(stores, 4, 5, 5);
		const journal = heard(applier);
		for (const seq of [5, 6, 7]) {
			applier.add(waiting(seq, seq === 6));
		}

		await journal.until(1);
		expect(commits).toEqual([{events: ['evt_5', 'evt_6', 'evt_7'], queued: ['evt_6'], applied: 7}]);
		expect(journal.told).toEqual([[5, 6, 7]]);
		expect(applier.appliedSeq).toBe(7);
	});

	it('keeps the events of a failed move for the next, tells the journal of the failure, and of the move once they are in', async () => {
		let failures = 1;
		const {stores, commits} = recordingStores(() => failures-- > 0);
		const applier = new LogApplier(stores, 0, 5, 5);
		const journal = heard(applier);
		applier.add(waiting(1));
		applier.add(waiting(2));
		await journal.until(1);
		expect(journal.failed).toHaveLength(1);
		expect(journal.told).toEqual([[1, 2]]);
		expect(commits).toEqual([{events: ['evt_1', 'evt_2'], queued: [], applied: 2}]);
		expect(applier.appliedSeq).toBe(2);
	});

	it('moves at once when asked for every event so far (a read, a lap of the log), whatever the time between moves', async () => {
		const {stores, commits} = recordingStores(() => false);
		// Moves an hour apart: the first goes at once, the second only when asked.
		const applier = new LogApplier(stores, 0, 3_600_000, 5);
		const journal = heard(applier);
		applier.add(waiting(1));
		await journal.until(1);
		applier.add(waiting(2));
		applier.add(waiting(3));
		await applier.applyAll();
		expect(commits.map(commit => commit.applied)).toEqual([1, 3]);
		// Nothing waits: at once.
		await applier.applyAll();
		await applier.stop();
	});
});
