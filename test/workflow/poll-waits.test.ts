/**
 * Adaptive polls (issue 47): the reply is polled at once, then after growing waits up to the poll
 * interval, and at most every 300 ms while its text grows; ingestion rounds follow 250 ms, 500 ms,
 * then the interval. Counted on a manual clock: the platform's requests per reply stay within
 * 1 + streaming seconds / 0.3 + 5, and a reply that completes at 300 ms is seen at once.
 */
import {setImmediate} from 'node:timers/promises';
import {describe, expect, it} from 'vitest';
import {ManualClock} from '../../source/platform/clock.js';
import type {Message} from '../../source/platform/types.js';
import {ingestionSteps, pollWaits, replyProgressMs, replySteps} from '../../source/workflow/poll-waits.js';
import {askAndWait} from '../../source/workflow/reply.js';
import type {UploadEvent} from '../../source/workflow/events.js';

const waits = (count: number, next: (index: number) => number): number[] => Array.from({length: count}, (_, index) => next(index));

describe('pollWaits', () => {
	it('grows the reply\'s waits from 100 ms to the interval, which it never passes', () => {
		const reply = pollWaits(1000, replySteps, replyProgressMs);
		expect(waits(7, () => reply.next())).toEqual([100, 200, 400, 800, 1000, 1000, 1000]);
		const short = pollWaits(250, replySteps, replyProgressMs);
		expect(waits(4, () => short.next())).toEqual([100, 200, 250, 250]);
	});

	it('keeps the reply\'s wait at most 300 ms while its text grows, then grows again from 400 ms', () => {
		const reply = pollWaits(1000, replySteps, replyProgressMs);
		expect(waits(5, () => reply.next(true))).toEqual([100, 200, 300, 300, 300]);
		expect(waits(3, () => reply.next(false))).toEqual([400, 800, 1000]);
		expect(reply.next(true)).toBe(300);
		expect(reply.next(false)).toBe(400);
	});

	it('spaces ingestion rounds 250 ms, 500 ms, then every interval', () => {
		const ingestion = pollWaits(1000, ingestionSteps);
		expect(waits(4, () => ingestion.next())).toEqual([250, 500, 1000, 1000]);
	});
});

/**
 * A platform whose reply streams on the clock: its text grows every `stepMs` from the prompt on and
 * stops streaming at `streamMs`. Counts the reads of the latest message.
 */
function streamingClient(clock: ManualClock, streamMs: number, stepMs: number) {
	let sentAt = 0;
	let reads = 0;
	return {
		reads: () => reads,
		async createSpaceMessage(): Promise<Message> {
			sentAt = clock.now();
			return Promise.resolve({id: 'msg_user', chatId: 'chat_a', role: 'USER', text: 'Question?'});
		},
		async getLatestMessage(): Promise<Message> {
			reads++;
			const elapsed = clock.now() - sentAt;
			const done = elapsed >= streamMs;
			const text = 'word '.repeat(Math.floor(Math.min(elapsed, streamMs) / stepMs) + 1);
			return Promise.resolve({id: 'msg_reply', chatId: 'chat_a', role: 'ASSISTANT', text, stoppedStreamingAt: done ? new Date().toISOString() : null});
		},
	};
}

/** Runs `askAndWait` on a manual clock, moving time to each wake-up until the reply is complete. */
async function askOnClock(streamMs: number, stepMs: number, pollIntervalMs = 1000) {
	const clock = new ManualClock(0);
	const client = streamingClient(clock, streamMs, stepMs);
	const events: UploadEvent[] = [];
	const state = {settled: false};
	const asked = askAndWait({client, assistantId: 'assistant_a', chatId: 'chat_a', prompt: 'Question?', pollIntervalMs, firstPollMs: 0, timeoutMs: 600_000, signal: new AbortController().signal, emit: event => events.push(event), clock}).finally(() => {
		state.settled = true;
	});
	for (let step = 0; step < 10_000 && !state.settled; step++) {
		// Let the poll that just woke reach its next sleep (or the end) before time moves again.
		await setImmediate();
		const next = clock.nextWakeMs();
		if (next !== undefined) {
			clock.advance(next);
		}
	}

	await asked;
	const complete = events.find(event => event.type === 'reply-complete');
	return {reads: client.reads(), completedAt: clock.now(), complete, progress: events.filter(event => event.type === 'reply-progress').length};
}

describe('askAndWait: adaptive reply polls', () => {
	it.each([1000, 3000, 10_000, 30_000])('a reply streaming %i ms costs at most 1 + seconds / 0.3 + 5 reads', async streamMs => {
		const {reads, completedAt, progress} = await askOnClock(streamMs, 50);
		expect(reads).toBeLessThanOrEqual(1 + streamMs / 1000 / 0.3 + 5);
		// While the text grows the polls stay at most 300 ms apart: the end is seen within 300 ms.
		expect(completedAt - streamMs).toBeLessThanOrEqual(replyProgressMs);
		expect(progress).toBeGreaterThan(1);
	});

	it('a reply that completes at 300 ms is seen on the poll at 300 ms (the interval\'s 1 s poll saw it at 1 s)', async () => {
		const {completedAt, reads} = await askOnClock(300, 100);
		expect(completedAt).toBe(300);
		expect(reads).toBe(3);
	});

	it('a reply that stops growing is polled with growing waits, never more than the interval apart', async () => {
		// One piece, then nothing new for 5 s: the reads grow apart up to the interval.
		const {reads, completedAt} = await askOnClock(5000, 10_000, 1000);
		expect(completedAt - 5000).toBeLessThanOrEqual(1000);
		expect(reads).toBeLessThanOrEqual(1 + 4 + 4);
	});
});
