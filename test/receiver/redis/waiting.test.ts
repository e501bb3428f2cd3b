/**
 * Durable retries with Redis: a job whose attempt ends waiting goes to BullMQ's delayed set with
 * its schedule in its steps; it lists as `waiting` with its next attempt, and when due any replica
 * takes it, resuming from the steps (here: the replica that set it waiting has stopped meanwhile).
 */
import {describe, expect, it} from 'vitest';
import type {JobHandler, StepRecord} from '../../../source/receiver/store/backend.js';
import {redisBackends} from '../../support/redis-backends.js';
import {redisSkipReason} from '../../support/redis.js';
import {waitFor} from '../../support/wait.js';
import {newEvent} from './events.js';

const fast = {lockDurationMs: 1000, stalledIntervalMs: 500};

describe.skipIf(redisSkipReason !== undefined)('redis: waiting events', () => {
	const suite = redisBackends(fast);

	it('a waiting job is delayed until its stored next attempt, listed as waiting, and taken by another replica when due', async () => {
		const queue = suite.redis().queueName();
		const a = await suite.open(queue);
		const b = await suite.open(queue);
		const waitMs = 1500;
		const waiting: JobHandler = async handle => {
			const until = new Date(Date.now() + waitMs).toISOString();
			await handle.recordStep({name: 'log-created', at: new Date().toISOString(), data: {order: 1, id: 'log_1'}});
			await handle.recordStep({name: 'waiting', at: new Date().toISOString(), data: {until, tries: 1, phase: 'answer'}, error: 'HTTP 503'});
			return {status: 'waiting', nextAttemptAt: until, error: 'HTTP 503'};
		};

		const resumed: StepRecord[][] = [];
		const answering: JobHandler = async handle => {
			resumed.push([...handle.event.steps]);
			await handle.recordStep({name: 'message-written', at: new Date().toISOString(), data: {apology: false}});
			return {status: 'answered'};
		};

		expect(await a.accept(newEvent('evt_wait'))).toBe('stored');
		await a.start(waiting, {concurrency: 1});
		const listed = await waitFor(async () => a.list({status: 'waiting'}), {until: found => found.length === 1, what: 'the waiting event'});
		const nextAttemptAt = listed[0]?.nextAttemptAt ?? '';
		expect(Date.parse(nextAttemptAt)).toBeGreaterThan(Date.now());
		expect(await a.waiting?.()).toEqual({count: 1, nextAttemptAt});
		await a.stop(1000);

		await b.start(answering, {concurrency: 1});
		await waitFor(async () => (await b.get('evt_wait'))?.status, {until: status => status === 'answered', what: 'the answer on the other replica'});
		expect(resumed).toHaveLength(1);
		expect(resumed[0]?.map(step => step.name)).toEqual(['log-created', 'waiting']);
		const stored = await b.get('evt_wait');
		expect(Date.parse(stored?.updatedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(nextAttemptAt));
		expect(await b.waiting?.()).toEqual({count: 0});
		await b.stop(1000);
	});
});
