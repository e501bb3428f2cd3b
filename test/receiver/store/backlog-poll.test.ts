/** `--max-backlog`'s poll of the store runs in the background: it never keeps the process running. */
import {describe, expect, it} from 'vitest';
import {abortableSleep} from '../../../source/platform/clock.js';
import {BacklogLimit} from '../../../source/receiver/store/backlog.js';

/** Timers that keep this thread's event loop running. */
const heldTimers = () => process.getActiveResourcesInfo().filter(name => name === 'Timeout').length;

describe('the backlog poll', () => {
	it('waits between reads on a timer that does not keep the process running', () => {
		const before = heldTimers();
		const limit = new BacklogLimit(10, () => 0, async () => Promise.resolve({count: 0}), 60_000);
		limit.start();
		try {
			expect(heldTimers()).toBe(before);
		} finally {
			limit.stop();
		}
	});

	it('a sleep keeps the process running unless it is asked not to', async () => {
		const before = heldTimers();
		const stop = new AbortController();
		const held = abortableSleep(60_000, stop.signal);
		expect(heldTimers()).toBe(before + 1);
		const loose = abortableSleep(60_000, stop.signal, {unref: true});
		expect(heldTimers()).toBe(before + 1);
		stop.abort();
		await Promise.all([held, loose]);
		expect(heldTimers()).toBe(before);
	});
});
