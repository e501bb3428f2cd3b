/**
 * An upload whose requests are refused now and then (`local --fail-rate 0.2`) keeps its workers
 * waiting on the run's one signal at the same time (retry backoffs, the pacer's 429 pause). Each
 * wait used to add its own 'abort' listener to that signal, more than Node's 10, and the run
 * printed `MaxListenersExceededWarning … 11 abort listeners`. The waits now share one listener.
 */
import {getEventListeners} from 'node:events';
import {mkdtempSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {abortableSleep, ManualClock} from '../../source/platform/clock.js';
import {runUpload} from '../../source/workflow/run-upload.js';
import {startPlatform, type TestPlatform} from '../support/platform.js';

/**
 * The most 'abort' listeners any one signal held while `action` ran, seen at every
 * addEventListener call (Node warns past 10; a test worker does not raise the warning itself).
 */
async function mostAbortListeners(action: () => Promise<void>): Promise<number> {
	const {prototype} = EventTarget;
	const original: EventTarget['addEventListener'] = Reflect.get(prototype, 'addEventListener');
	let most = 0;
	prototype.addEventListener = function (this: EventTarget, ...args: Parameters<EventTarget['addEventListener']>) {
		Reflect.apply(original, this, args);
		if (this instanceof AbortSignal && args[0] === 'abort') {
			most = Math.max(most, getEventListeners(this, 'abort').length);
		}
	};

	try {
		await action();
	} finally {
		prototype.addEventListener = original;
	}

	return most;
}

describe('waits on one signal', () => {
	it('share one abort listener, and all wake when it aborts', async () => {
		const controller = new AbortController();
		const clock = new ManualClock();
		const sleeps = Array.from({length: 40}, async (_, index) => (index % 2 === 0 ? abortableSleep(3_600_000, controller.signal) : clock.sleep(3_600_000, controller.signal)));
		expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
		controller.abort();
		await Promise.all(sleeps);
		expect(clock.pendingSleeps).toBe(0);
	});
});

describe('an upload with refused requests', () => {
	let test: TestPlatform;

	beforeAll(async () => {
		test = await startPlatform();
	});

	afterAll(async () => {
		await test.close();
	});

	it('runs 16 workers through retries with at most 2 abort listeners on any signal (Node warns past 10)', async () => {
		// Every other call refused with Retry-After 0.05 s: the workers' waits overlap.
		test.platform.setFaults({failRate: 0.5, seed: 7, faultRetryAfterSeconds: 0.05});
		const folder = mkdtempSync(path.join(tmpdir(), 'platform-tui-listeners-'));
		for (let index = 0; index < 32; index++) {
			writeFileSync(path.join(folder, `f${index}.txt`), `File ${index} covers the warranty.\n`);
		}

		const client = test.client({retries: 20, retryCapMs: 20});
		try {
			const most = await mostAbortListeners(async () => {
				await runUpload({client, assistantId: test.platform.assistantId, folder, prompt: 'What is covered?', pollIntervalMs: 10, concurrency: 16}, () => undefined);
			});
			expect(most).toBeLessThanOrEqual(2);
		} finally {
			test.platform.setFaults({failRate: 0});
			await client.close();
		}
	});
});
