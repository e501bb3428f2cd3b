import {describe, expect, it} from 'vitest';
import {defaultDedupeMaxEntries, defaultDedupeTtlMs, EventIdStore} from '../../../source/receiver/intake/dedupe.js';

describe('EventIdStore (exactly once by event id)', () => {
	it('keeps ids for 24 hours and up to 100 000 of them by default', () => {
		expect(defaultDedupeTtlMs).toBe(24 * 60 * 60 * 1000);
		expect(defaultDedupeMaxEntries).toBe(100_000);
		const store = new EventIdStore();
		expect(store.ttlMs).toBe(defaultDedupeTtlMs);
		expect(store.maxEntries).toBe(defaultDedupeMaxEntries);
	});

	it('accepts an id once, and again only after it expired', () => {
		let now = 1_000_000;
		const store = new EventIdStore({ttlMs: 1000, now: () => now});
		expect(store.add('evt_a')).toBe(true);
		expect(store.add('evt_a')).toBe(false);
		now += 999;
		expect(store.has('evt_a')).toBe(true);
		expect(store.add('evt_a')).toBe(false);
		now += 1;
		expect(store.has('evt_a')).toBe(false);
		expect(store.add('evt_a')).toBe(true);
	});

	it('forgets expired ids as new ones arrive, so it does not grow without bound', () => {
		let now = 0;
		const store = new EventIdStore({ttlMs: 100, now: () => now});
		for (let index = 0; index < 50; index++) {
			store.add(`evt_${index}`);
		}

		now = 150;
		store.add('evt_new');
		expect(store.size).toBe(1);
	});

	it('drops the oldest ids first beyond maxEntries', () => {
		const store = new EventIdStore({maxEntries: 3});
		for (const id of ['evt_1', 'evt_2', 'evt_3', 'evt_4']) {
			expect(store.add(id)).toBe(true);
		}

		expect(store.size).toBe(3);
		expect(store.has('evt_1')).toBe(false);
		expect(store.has('evt_2')).toBe(true);
		expect(store.has('evt_4')).toBe(true);
		// The forgotten oldest id would be accepted again.
		expect(store.add('evt_1')).toBe(true);
		expect(store.has('evt_2')).toBe(false);
	});

	it('forgets an id on request', () => {
		const store = new EventIdStore();
		store.add('evt_x');
		store.delete('evt_x');
		expect(store.add('evt_x')).toBe(true);
	});
});
