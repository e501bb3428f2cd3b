/**
 * A replica's stop on Redis: a job cut off at the drain deadline that ends waiting goes back to the
 * queue for another replica (nothing failed), and a stop with no job running does not wait out the
 * drain time, even with Redis unreachable.
 */
import {describe, expect, it} from 'vitest';
import {BackendUnavailableError} from '../../../source/receiver/store/backend.js';
import {redisBackends} from '../../support/redis-backends.js';
import {redisSkipReason, startRedis} from '../../support/redis.js';
import {waitFor} from '../../support/wait.js';
import {newEvent, recordingHandler, type Seen, statusOf} from './events.js';

const fast = {lockDurationMs: 1000, stalledIntervalMs: 500};

describe.skipIf(redisSkipReason !== undefined)('a replica that stops', () => {
	const suite = redisBackends(fast);

	it('leaves a job cut off at the drain deadline waiting: another replica takes it and answers it', async () => {
		const queue = suite.redis().queueName();
		const first = await suite.open(queue);
		await first.start(async job => new Promise(resolve => {
			job.signal.addEventListener('abort', () => {
				// As the answer ends an attempt cut off by a stop: a wait due at once, recorded.
				const now = new Date().toISOString();
				void job.recordStep({name: 'waiting', at: now, data: {until: now, tries: 1, phase: 'answer'}, error: 'serve stopped'}).then(() => {
					resolve({status: 'waiting', nextAttemptAt: now, error: 'serve stopped'});
				});
			});
		}), {concurrency: 1});
		await first.accept(newEvent('evt_cut'));
		await waitFor(() => first.active() === 1, {what: 'the job to start'});
		expect(await first.stop(50)).toEqual({cutOff: 1});
		expect(await statusOf(first, 'evt_cut')).toBe('waiting');

		const second = await suite.open(queue);
		const seen: Seen[] = [];
		await second.start(recordingHandler(seen), {concurrency: 1});
		await waitFor(async () => statusOf(second, 'evt_cut'), {until: status => status === 'answered', what: 'the answer on the other replica'});
		expect(seen.map(item => item.id)).toEqual(['evt_cut']);
		await second.stop(1000);
	});

	it('with no job running and Redis unreachable, a stop does not wait out the drain time', async () => {
		const own = await startRedis({forceLocal: true});
		try {
			const replica = await suite.open(own.queueName(), {url: own.url, hangUpMs: 100});
			await replica.start(recordingHandler([]), {concurrency: 2});
			await own.stop();
			await waitFor(async () => await replica.accept(newEvent('evt_in_outage')).catch((error: unknown) => error) instanceof BackendUnavailableError, {what: 'the replica to see Redis gone'});
			// A drain time of ten minutes: the stop returns after the hang-up, as nothing runs.
			expect(await replica.stop(600_000)).toEqual({cutOff: 0});
		} finally {
			await own.stop();
		}
	});
});
