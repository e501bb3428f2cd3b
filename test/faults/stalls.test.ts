import {spawn} from 'node:child_process';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';
import type {JobHandler, StepRecord} from '../../source/receiver/store/backend.js';
import {newEvent, statusOf} from '../receiver/redis/events.js';
import {redisBackends} from '../support/redis-backends.js';
import {redisSkipReason} from '../support/redis.js';
import {waitFor} from '../support/wait.js';

const fast = {lockDurationMs: 1000, stalledIntervalMs: 500};
const replicaPath = fileURLToPath(new URL('../receiver/redis/fixtures/replica.ts', import.meta.url));

/** Starts a replica that takes `id`, records a step and hangs; kills it once it did. */
async function replicaDiesWith(url: string, queue: string, id: string): Promise<void> {
	const child = spawn(process.execPath, ['--import', 'tsx', replicaPath, url, queue, String(fast.lockDurationMs), String(fast.stalledIntervalMs)], {stdio: ['ignore', 'pipe', 'inherit']});
	let output = '';
	child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
		output += chunk;
	});
	const exited = new Promise(resolve => child.once('exit', resolve));
	try {
		await waitFor(() => output.includes(`step ${id}`), {what: `a replica to take ${id}`});
	} finally {
		child.kill('SIGKILL');
		await exited;
	}
}

describe.skipIf(redisSkipReason !== undefined)('redis: a job whose replica dies three times', () => {
	const suite = redisBackends(fast);

	it('ends failed through the failure path (the handler gets a failing step and writes the apology), not left streaming', async () => {
		const queue = suite.redis().queueName();
		const producer = await suite.open(queue);
		expect(await producer.accept(newEvent('evt_stalls'))).toBe('stored');
		for (let death = 0; death < 3; death++) {
			await replicaDiesWith(suite.redis().url, queue, 'evt_stalls');
		}

		const given: StepRecord[][] = [];
		const handler: JobHandler = async job => {
			given.push([...job.event.steps]);
			if (job.event.steps.some(step => step.name === 'failing')) {
				await job.recordStep({name: 'message-written', at: new Date().toISOString(), data: {apology: true}});
				return {status: 'failed', error: 'stalled'};
			}

			await job.recordStep({name: 'message-written', at: new Date().toISOString(), data: {apology: false}});
			return {status: 'answered'};
		};

		const survivor = await suite.open(queue);
		await survivor.start(handler, {concurrency: 1});
		await waitFor(async () => (await survivor.get('evt_stalls'))?.steps.some(step => step.name === 'message-written'), {what: 'the failure path'});
		expect(await statusOf(survivor, 'evt_stalls')).toBe('failed');
		expect(given).toHaveLength(1);
		const failing = given[0]?.find(step => step.name === 'failing');
		expect(failing?.error).toMatch(/stalled more than allowable limit/);
		const stored = await survivor.get('evt_stalls');
		expect(stored?.steps.at(-1)).toMatchObject({name: 'message-written', data: {apology: true}});
		await survivor.stop(5000);
	});
});
