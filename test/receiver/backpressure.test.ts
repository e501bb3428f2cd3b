/**
 * Backpressure: past --max-backlog a delivery gets 503 with Retry-After and nothing is stored, and
 * its redelivery is accepted once room frees; --platform-rate paces the calls the platform sees;
 * a 429 holds every worker for its Retry-After. The pacing runs on a manual clock (the calls still
 * go over loopback HTTP), so the platform's arrivals are stamped with the clock's time.
 */
import {setImmediate} from 'node:timers/promises';
import {describe, expect, it} from 'vitest';
import {PlatformClient} from '../../source/platform/client.js';
import {ManualClock} from '../../source/platform/clock.js';
import {Pacer} from '../../source/platform/pacer.js';
import {openJournal} from '../../source/receiver/journal/index.js';
import {createReceiver, type WebhookReceiver} from '../../source/receiver/server.js';
import {tempDataDir} from './journal/helpers.js';
import {sendJson, startRecordingServer, type RecordingServer} from '../support/recording-server.js';
import {waitFor} from '../support/wait.js';
import {chosenEvent, platformAnswer, sendSigned} from './helpers.js';
import {closersAfterEach} from '../support/cleanups.js';

const secret = 'whsec_backpressure';
const cleanups = closersAfterEach();

/** A pacer that counts the attempts it has let start. */
class CountingPacer extends Pacer {
	granted = 0;

	override async acquire(signal?: AbortSignal): Promise<void> {
		await super.acquire(signal);
		this.granted++;
	}
}

/** Longest wait the receiver's calls make here (pacing, a 429's second, backoff); the attempts' 15 s timeouts never fall due. */
const horizonMs = 2000;

/**
 * Runs `clock` until `done()`: time moves only while every call the pacer let start has reached
 * the platform (so each arrival is stamped with the time its call was let go), and only to the
 * next wake-up within the horizon. Bounded in steps, and each wait in time.
 */
async function runClock(clock: ManualClock, pacer: CountingPacer, arrived: () => number, done: () => boolean): Promise<void> {
	for (let step = 0; step < 2000; step++) {
		const next = await waitFor(() => {
			if (done()) {
				return {finished: true, ms: 0};
			}

			const wake = clock.nextWakeMs();
			return pacer.granted === arrived() && wake !== undefined && wake <= horizonMs ? {finished: false, ms: wake} : undefined;
		}, {intervalMs: 1, what: 'the calls to wait on the clock'});
		if (next.finished) {
			return;
		}

		clock.advance(next.ms);
		// The woken calls count themselves in promise callbacks: let those run before the next look.
		await setImmediate();
	}

	throw new Error('the clock moved 2000 times without the run ending');
}

async function start(platform: RecordingServer, options: {maxBacklog?: number; backlogClock?: ManualClock; pacer?: Pacer; clock?: ManualClock; concurrency?: number}): Promise<{receiver: WebhookReceiver; url: string}> {
	const client = new PlatformClient({baseUrl: platform.url, apiKey: 'sk_test_key', appId: 'app_test', retries: 3, retryBaseMs: 5, retryCapMs: 20, ...(options.pacer ? {pacer: options.pacer} : {}), ...(options.clock ? {clock: options.clock} : {})});
	const backend = await openJournal({directory: tempDataDir()});
	const receiver = createReceiver({client, secrets: [secret], backend, concurrency: options.concurrency ?? 8, ...(options.maxBacklog === undefined ? {} : {maxBacklog: options.maxBacklog}), ...(options.backlogClock ? {backlogClock: options.backlogClock} : {})});
	const {url} = await receiver.listen({port: 0});
	cleanups.push(async () => {
		await receiver.close(2000);
		await client.close();
	});
	return {receiver, url};
}

const event = (n: number) => chosenEvent({chatId: `chat_${n}`, text: 'Question?', assistantMessageId: `msg_${n}`, userId: 'user_a', companyId: 'company_a'});

describe('--max-backlog', () => {
	it('MUST-SHOW: answers 503 with Retry-After past the bound, stores nothing, and accepts the redelivery once room frees', async () => {
		let release: () => void = () => undefined;
		const gate = new Promise<void>(resolve => {
			release = resolve;
		});
		const platform = await startRecordingServer({handler: async (request, response) => {
			await gate;
			sendJson(response, 200, platformAnswer(request));
		}});
		cleanups.push(async () => platform.close());
		const clock = new ManualClock();
		const {receiver, url} = await start(platform, {maxBacklog: 1, backlogClock: clock});
		const first = event(1);
		const second = event(2);
		expect((await sendSigned(`${url}/webhook`, first, secret)).status).toBe(200);
		// The first event's job waits on the platform: the backlog is full.
		await waitFor(() => platform.requests.length > 0, {what: 'the first job to call the platform'});
		const refused = await sendSigned(`${url}/webhook`, second, secret);
		expect(refused.status).toBe(503);
		expect(refused.body).toEqual({success: false, error: 'Receiver backlog full, retry later'});
		expect(await receiver.event(String(second.id))).toBeUndefined();
		expect(receiver.counters()).toMatchObject({rejected: 1, processing: 1});
		release();
		await waitFor(async () => (await receiver.event(String(first.id)))?.status, {until: status => status === 'answered', what: 'the first answer'});
		// The platform redelivers (it retries a 503): still refused while the last read of the store's
		// count knows the first event only as accepted; accepted once the next read shows the room.
		expect((await sendSigned(`${url}/webhook`, second, secret)).status).toBe(503);
		clock.advance(1000);
		await waitFor(() => receiver.backlog().count, {until: count => count === 0, what: 'the store\'s count to show the room'});
		expect((await sendSigned(`${url}/webhook`, second, secret)).status).toBe(200);
		expect(await receiver.event(String(second.id))).toMatchObject({id: second.id});
	});
});

describe('--platform-rate', () => {
	it('MUST-SHOW: the recording platform sees the configured calls per second (within 10 %)', async () => {
		const rate = 25;
		const clock = new ManualClock();
		const arrivals: number[] = [];
		const platform = await startRecordingServer({handler: (request, response) => {
			arrivals.push(clock.now());
			sendJson(response, 200, platformAnswer(request));
		}});
		cleanups.push(async () => platform.close());
		const pacer = new CountingPacer({perSecond: rate, clock});
		const {receiver, url} = await start(platform, {pacer, clock, concurrency: 8});
		const events = Array.from({length: 12}, (_, index) => event(index));
		for (const item of events) {
			expect((await sendSigned(`${url}/webhook`, item, secret)).status).toBe(200);
		}

		await runClock(clock, pacer, () => arrivals.length, () => receiver.counters().answered === events.length);
		// 12 answers × 7 calls: the rate over the whole window of calls.
		expect(arrivals.length).toBe(12 * 7);
		const first = arrivals[0] ?? 0;
		const last = arrivals.at(-1) ?? 0;
		const observed = (arrivals.length - 1) / ((last - first) / 1000);
		expect(observed).toBeGreaterThan(rate * 0.9);
		expect(observed).toBeLessThan(rate * 1.1);
		// Evenly spaced, no burst: no two calls closer than 1/rate, whatever 8 workers ask for.
		const gaps = arrivals.slice(1).map((at, index) => at - (arrivals[index] ?? 0));
		expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1000 / rate);
	});

	it('a 429 holds every worker until its Retry-After has passed', async () => {
		const clock = new ManualClock();
		const arrivals: Array<{at: number; status: number}> = [];
		let limited = false;
		const platform = await startRecordingServer({handler: (request, response) => {
			const at = clock.now();
			if (!limited && request.path.startsWith('/search')) {
				limited = true;
				arrivals.push({at, status: 429});
				response.writeHead(429, {'content-type': 'application/json', 'retry-after': '1'}).end('{"error":"slow down"}');
				return;
			}

			arrivals.push({at, status: 200});
			sendJson(response, 200, platformAnswer(request));
		}});
		cleanups.push(async () => platform.close());
		const pacer = new CountingPacer({clock});
		const {receiver, url} = await start(platform, {pacer, clock, concurrency: 4});
		for (let index = 0; index < 4; index++) {
			expect((await sendSigned(`${url}/webhook`, event(100 + index), secret)).status).toBe(200);
		}

		await runClock(clock, pacer, () => arrivals.length, () => receiver.counters().answered === 4);
		const limitIndex = arrivals.findIndex(arrival => arrival.status === 429);
		expect(limitIndex).toBeGreaterThanOrEqual(0);
		const pausedUntil = (arrivals[limitIndex]?.at ?? 0) + 1000;
		// Every call that reached the platform after the 429 did so once its second had passed...
		const after = arrivals.slice(limitIndex + 1);
		expect(after.filter(arrival => arrival.at >= pausedUntil).length).toBeGreaterThan(0);
		// ...but for calls already on the wire when the 429 came back (at most the 3 other workers').
		const inside = after.filter(arrival => arrival.at < pausedUntil);
		expect(inside.length).toBeLessThanOrEqual(3);
	});
});
