import {setImmediate as nextTurn} from 'node:timers/promises';
import {describe, expect, it} from 'vitest';
import {MetaSync} from '../../../source/receiver/journal/open/meta-sync.js';

/** A commit the test finishes by hand: `issue` hands MetaSync its promise. */
function commit<T>(value: T): {issue: () => Promise<T>; finish: () => void; fail: (error: Error) => void} {
	const settle: {finish?: () => void; fail?: (error: Error) => void} = {};
	const promise = new Promise<T>((resolve, reject) => {
		settle.finish = () => {
			resolve(value);
		};

		settle.fail = reject;
	});
	return {
		issue: async () => promise,
		finish() {
			settle.finish?.();
		},
		fail(error) {
			settle.fail?.(error);
		},
	};
}

/** A flush that counts itself (and fails while `refuse` is set). */
function counter(): {flush: () => Promise<void>; count: number; refuse: boolean} {
	const state = {
		count: 0,
		refuse: false,
		async flush() {
			await Promise.resolve();
			state.count++;
			if (state.refuse) {
				throw new Error('EIO');
			}
		},
	};
	return state;
}

/** Lets the promise callbacks queued now run, within the same turn of the event loop. */
async function microtasks(): Promise<void> {
	for (let index = 0; index < 10; index++) {
		await Promise.resolve();
	}
}

/** Records when each write resolved, and after how many flushes. */
async function track(promise: Promise<unknown>, log: string[], name: string, flushes?: {count: number}): Promise<unknown> {
	try {
		const value = await promise;
		log.push(flushes ? `${name} after ${flushes.count} flushes` : name);
		return value;
	} catch (error) {
		log.push(`${name} failed`);
		throw error;
	}
}

describe('MetaSync: a journal write resolves once its commit\'s meta page is on disk', () => {
	it('releases a write when a commit issued after it finished, with no flush of its own', async () => {
		const flushes = counter();
		const meta = new MetaSync(flushes.flush);
		const log: string[] = [];
		const first = commit('a');
		const firstWrite = track(meta.write(first.issue), log, 'first', flushes);
		first.finish();
		// The next write is issued in the same turn: its commit carries the first one's meta page.
		await microtasks();
		const second = commit('b');
		const secondWrite = track(meta.write(second.issue), log, 'second', flushes);
		await nextTurn();
		expect(log).toEqual([]);
		second.finish();
		expect(await firstWrite).toBe('a');
		// Nothing follows the second: one flush of its own releases it.
		expect(await secondWrite).toBe('b');
		expect(log).toEqual(['first after 0 flushes', 'second after 1 flushes']);
	});

	it('flushes for a write no other write follows, and never releases one before its commit finished', async () => {
		const flushes = counter();
		const meta = new MetaSync(flushes.flush);
		const log: string[] = [];
		const only = commit(true);
		const written = track(meta.write(only.issue), log, 'only', flushes);
		await nextTurn();
		expect(flushes.count).toBe(0);
		expect(log).toEqual([]);
		only.finish();
		expect(await written).toBe(true);
		expect(log).toEqual(['only after 1 flushes']);
	});

	it('a write whose carrier failed waits for a flush; a failed flush fails the writes it was to release', async () => {
		const flushes = counter();
		const meta = new MetaSync(flushes.flush);
		const log: string[] = [];
		const first = commit(1);
		const firstWrite = track(meta.write(first.issue), log, 'first');
		first.finish();
		await microtasks();
		const carrier = commit(2);
		const carrierWrite = track(meta.write(carrier.issue), log, 'carrier');
		carrier.fail(new Error('Commit failed'));
		await expect(carrierWrite).rejects.toThrow('Commit failed');
		expect(await firstWrite).toBe(1);

		flushes.refuse = true;
		const last = commit(3);
		const lastWrite = track(meta.write(last.issue), log, 'last');
		last.finish();
		await expect(lastWrite).rejects.toThrow('EIO');
		expect(log).toEqual(['carrier failed', 'first', 'last failed']);
	});
});
