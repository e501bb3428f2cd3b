/**
 * The sweep of events accepted here and not running here (Redis): one another replica ended stops
 * counting as processing (said once, with how it ended), one removed after it ended likewise, one
 * whose id Redis no longer holds is logged lost; running ones and unfinished ones are left alone,
 * and a store that fails ends the sweep without a change.
 */
import {describe, expect, it} from 'vitest';
import type {EventStatus, StoredEvent} from '../../source/receiver/store/backend.js';
import type {ReceiverCounters, StageEvent} from '../../source/receiver/events.js';
import {sweepOpenJobs} from '../../source/receiver/store/lost-sweep.js';
import {OpenJobs} from '../../source/receiver/store/open-jobs.js';

const counters = (): ReceiverCounters => ({received: 0, verified: 0, rejected: 0, duplicates: 0, processing: 0, answered: 0, failed: 0});

function stored(id: string, status: EventStatus): StoredEvent {
	return {id, event: 'platform.chat.external-module.chosen', receivedAt: '2025-01-01T00:00:00.000Z', body: '{}', headers: {}, status, updatedAt: '2025-01-01T00:00:00.000Z', steps: [], attempts: 1};
}

describe('the sweep of events accepted here', () => {
	it('drops what ended elsewhere or was lost, once, and leaves running and unfinished events counted', async () => {
		const figures = counters();
		const open = new OpenJobs(figures);
		for (const id of ['answered', 'failed', 'pruned', 'lost', 'waiting', 'running']) {
			open.track(id, `chat-${id}`);
		}

		open.start('running');
		expect(figures.processing).toBe(6);
		const store = new Map<string, StoredEvent>([['answered', stored('answered', 'answered')], ['failed', stored('failed', 'failed')], ['waiting', stored('waiting', 'received')], ['running', stored('running', 'answered')]]);
		const emitted: StageEvent[] = [];
		const options = {
			backend: {get: async (id: string) => Promise.resolve(store.get(id)), holds: async (id: string) => Promise.resolve(id === 'pruned')},
			open,
			emit: (event: StageEvent) => emitted.push(event),
			now: () => '2025-01-01T00:00:01.000Z',
		};
		await sweepOpenJobs(options);
		expect(emitted.map(event => [event.eventId, event.stage, event.finalStatus, event.chatId])).toEqual([
			['answered', 'elsewhere', 'answered', 'chat-answered'],
			['failed', 'elsewhere', 'failed', 'chat-failed'],
			['pruned', 'elsewhere', undefined, 'chat-pruned'],
			['lost', 'lost', undefined, 'chat-lost'],
		]);
		expect(figures.processing).toBe(2);
		await sweepOpenJobs(options);
		expect(emitted).toHaveLength(4);
		expect(open.end('running')).toBeGreaterThanOrEqual(0);
		expect(figures.processing).toBe(1);

		const failing = {...options, backend: {get: async () => Promise.reject(new Error('Redis is down')), holds: async () => Promise.resolve(false)}};
		await sweepOpenJobs(failing);
		expect(figures.processing).toBe(1);
		expect(emitted).toHaveLength(4);
	});
});
