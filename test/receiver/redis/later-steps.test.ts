import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {EventBackend, JobHandler} from '../../../source/receiver/store/backend.js';
import {openRedisBackend} from '../../../source/receiver/redis/index.js';
import {redisSkipReason, startRedis, type TestRedis} from '../../support/redis.js';
import {waitFor} from '../../support/wait.js';
import {newEvent} from './events.js';

/** A promise with its resolve, for a handler that stops where the test looks. */
function gate(): {opened: Promise<void>; open: () => void} {
	let open: () => void = () => undefined;
	const opened = new Promise<void>(resolve => {
		open = resolve;
	});
	return {opened, open};
}

describe.skipIf(redisSkipReason !== undefined)('redis: steps a resume can do again', () => {
	let redis: TestRedis;
	let backend: EventBackend;

	beforeAll(async () => {
		redis = await startRedis();
		backend = await openRedisBackend({url: redis.url, queueName: redis.queueName(), lockDurationMs: 1000, stalledIntervalMs: 500});
	});

	afterAll(async () => {
		await backend.close();
		await redis.stop();
	});

	it('stores a step given later with the next step, and one left at the end with the outcome', async () => {
		const [first, second] = [gate(), gate()];
		const reached: string[] = [];
		const at = () => new Date().toISOString();
		const handler: JobHandler = async job => {
			await job.recordStep({name: 'log-requested', at: at()});
			await job.recordStep({name: 'searched', at: at()}, {later: true});
			reached.push('later');
			await first.opened;
			await job.recordStep({name: 'log-requested', at: at(), data: {order: 2}});
			await job.recordStep({name: 'completed', at: at()}, {later: true});
			reached.push('second later');
			await second.opened;
			return {status: 'answered'};
		};

		const names = async () => (await backend.get('evt_later'))?.steps.map(step => step.name);
		expect(await backend.accept(newEvent('evt_later'))).toBe('stored');
		await backend.start(handler, {concurrency: 1});
		await waitFor(() => reached.includes('later'), {what: 'the first step given later'});
		expect(await names()).toEqual(['log-requested']);
		first.open();
		await waitFor(() => reached.includes('second later'), {what: 'the second step given later'});
		expect(await names()).toEqual(['log-requested', 'searched', 'log-requested']);
		second.open();
		await waitFor(async () => (await backend.get('evt_later'))?.status === 'answered', {what: 'the answer'});
		expect(await names()).toEqual(['log-requested', 'searched', 'log-requested', 'completed']);
		await backend.stop(1000);
	});
});
