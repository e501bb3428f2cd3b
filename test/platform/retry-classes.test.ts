import {createServer as createHttpServer, type Server as HttpServer} from 'node:http';
import {afterEach, describe, expect, it} from 'vitest';
import {PlatformClient, type RequestLogEntry} from '../../source/platform/client.js';
import {ManualClock} from '../../source/platform/clock.js';
import {PlatformApiError, PlatformConnectionError, PlatformTimeoutError} from '../../source/platform/errors.js';
import {retryClasses} from '../../source/platform/retry.js';
import {clientFixture, retries, wakeWhen} from './fixture.js';
import {validAnswers} from './answers.js';
import {freePort} from '../support/free-port.js';
import {waitFor} from '../support/wait.js';

const fixture = clientFixture();
const {client} = fixture;

const creates: Array<[string, (c: PlatformClient) => Promise<unknown>]> = [
	['createChat', async c => c.createChat({title: 'T', assistantId: 'a'})],
	['createSpaceMessage', async c => c.createSpaceMessage({assistantId: 'a', chatId: 'c', text: 't'})],
	['createMessageLog', async c => c.createMessageLog({messageId: 'm', text: 't', status: 'RUNNING', order: 1})],
	['createContent', async c => c.upsertContent({input: {key: 'a.txt', title: 'a.txt', mimeType: 'text/plain'}, chatId: 'c'})],
	['rotateKey', async c => c.rotateKey()],
];

describe('the retry table', () => {
	it('gives every operation a class; creates are the calls that make something new', () => {
		expect(Object.entries(retryClasses).filter(([, retryClass]) => retryClass === 'create').map(([name]) => name).sort())
			.toEqual(['createChat', 'createContent', 'createMessageLog', 'createSpaceMessage', 'rotateKey']);
	});

	for (const [operation, call] of creates) {
		it(`${operation} answered 502 after the platform did it is not sent again`, async () => {
			fixture.server.setFallback(() => ({status: 502, body: {error: 'bad gateway'}}));
			const error = await call(client()).catch((error_: unknown) => error_) as PlatformApiError;
			expect(error).toBeInstanceOf(PlatformApiError);
			expect(error.data).toMatchObject({operation, status: 502, attempts: 1});
			expect(fixture.server.requests).toHaveLength(1);
		});
	}

	it('a create that timed out after sending is not sent again either', async () => {
		fixture.server.enqueue({status: 0, hang: true});
		const clock = new ManualClock();
		const failing = client({timeoutMs: 100, writeTimeoutMs: 200, clock}).createChat({title: 'T', assistantId: 'a'}).catch((error_: unknown) => error_);
		expect(await wakeWhen(clock, () => fixture.server.requests.length === 1, 'the create to reach the platform')).toBe(200);
		const error = await failing as PlatformTimeoutError;
		expect(error).toBeInstanceOf(PlatformTimeoutError);
		expect(error.message).toMatch(/^POST \/space\/chat: no answer after 1 attempt over /);
		expect(fixture.server.requests).toHaveLength(1);
	});

	it('a create and a message write are waited for the write deadline (60 s), a read for the read deadline (15 s)', async () => {
		const clock = new ManualClock();
		const waited: Record<string, number> = {};
		for (const [name, call] of [
			['createMessageLog', async (c: PlatformClient) => c.createMessageLog({messageId: 'm', text: 't', status: 'RUNNING', order: 1})],
			['modifyMessage', async (c: PlatformClient) => c.modifyMessage('m', {chatId: 'c', text: 't'}, {sentOnce: true})],
			['getMessage', async (c: PlatformClient) => c.getMessage('m', 'c', {retries: 0})],
		] as const) {
			fixture.server.enqueue({status: 0, hang: true});
			const before = fixture.server.requests.length;
			const started = clock.now();
			const failing = call(client({clock})).catch((error_: unknown) => error_);
			await wakeWhen(clock, () => fixture.server.requests.length === before + 1, `${name} to reach the platform`);
			expect(await failing).toBeInstanceOf(PlatformTimeoutError);
			waited[name] = clock.now() - started;
		}

		expect(waited).toEqual({createMessageLog: 60_000, modifyMessage: 60_000, getMessage: 15_000});
		// Sent once each: the timed-out write was not sent again.
		expect(fixture.server.requests).toHaveLength(3);
	});

	it('a message write sent once is not sent again after a 502 (an idempotent call would be)', async () => {
		fixture.server.setFallback(() => ({status: 502, body: {error: 'bad gateway'}}));
		await expect(client().modifyMessage('m', {chatId: 'c', text: 't'}, {sentOnce: true})).rejects.toBeInstanceOf(PlatformApiError);
		expect(fixture.server.requests).toHaveLength(1);
	});

	it('the finalizing upsert is idempotent: a 502 is retried', async () => {
		fixture.server.enqueue({status: 502, body: {error: 'bad gateway'}}, {status: 200, body: validAnswers.finalizeContent});
		await client().finalizeContent({input: {key: 'a.txt', title: 'a.txt', mimeType: 'text/plain', byteSize: 3}, chatId: 'c', fileUrl: 'http://blob/read'});
		expect(fixture.server.requests).toHaveLength(2);
	});

	it('a create answered 429 is retried', async () => {
		fixture.server.enqueue({status: 429, body: {error: 'slow down'}}, {status: 200, body: validAnswers.createChat});
		await expect(client().createChat({title: 'T', assistantId: 'a'})).resolves.toMatchObject({id: 'chat_1'});
		expect(fixture.server.requests).toHaveLength(2);
	});

	it('a GET answered 502 is retried', async () => {
		fixture.server.enqueue({status: 502, body: {error: 'bad gateway'}}, {status: 502, body: {error: 'bad gateway'}}, {status: 200, body: validAnswers.getSpace});
		await expect(client().getSpace('assistant_1')).resolves.toMatchObject({name: 'Space'});
		expect(fixture.server.requests).toHaveLength(3);
	});

	it('the error after the retries says how many attempts over how long', async () => {
		fixture.server.setFallback(() => ({status: 503, body: {error: 'busy'}, headers: {'request-id': 'req_busy'}}));
		const error = await client({retries: 2}).getSpace('a').catch((error_: unknown) => error_) as PlatformApiError;
		expect(error.code).toBe('platform-unavailable');
		expect(error.data).toMatchObject({operation: 'getSpace', method: 'GET', path: '/space/a', status: 503, requestId: 'req_busy', attempts: 3});
		expect(error.data.elapsedMs).toBeGreaterThan(0);
	});
});

describe('a create whose connection was refused is retried', () => {
	let late: HttpServer | undefined;

	afterEach(async () => {
		const started = late;
		late = undefined;
		if (started) {
			started.closeAllConnections();
			await new Promise(resolve => {
				started.close(resolve);
			});
		}
	});

	it('retries createChat after ECONNREFUSED and sends it exactly once', async () => {
		const port = await freePort();
		let received = 0;
		let starting: Promise<void> | undefined;
		const startLate = async () => {
			late = createHttpServer((request, response) => {
				received++;
				request.resume();
				response.writeHead(200, {'content-type': 'application/json'});
				response.end(JSON.stringify(validAnswers.createChat));
			});
			await new Promise<void>(resolve => {
				late?.listen(port, '127.0.0.1', resolve);
			});
		};

		const log: RequestLogEntry[] = [];
		const refused = client({
			baseUrl: `http://127.0.0.1:${port}`,
			retries: 5,
			retryBaseMs: 50,
			onRequest(entry) {
				log.push(entry);
				// The platform comes up once the first attempt was refused.
				if (entry.retryInMs !== undefined) {
					starting ??= startLate();
				}
			},
		});
		await expect(refused.createChat({title: 'T', assistantId: 'a'})).resolves.toMatchObject({id: 'chat_1'});
		await starting;
		expect(received).toBe(1);
		expect(log.find(entry => entry.error?.includes('ECONNREFUSED'))).toBeDefined();
	});

	it('a create whose connection was reset is not retried', async () => {
		fixture.server.enqueue({status: 0, reset: true});
		const error = await client().createMessageLog({messageId: 'm', text: 't', status: 'RUNNING', order: 1}).catch((error_: unknown) => error_) as PlatformConnectionError;
		expect(error).toBeInstanceOf(PlatformConnectionError);
		expect(error.code).toBe('platform-connection-lost');
		expect(error.refused).toBe(false);
		expect(fixture.server.requests).toHaveLength(1);
	});
});

describe('total time', () => {
	it('bounds all attempts of an operation together, not each one', async () => {
		fixture.server.setFallback(() => ({status: 0, hang: true}));
		const clock = new ManualClock();
		const log: RequestLogEntry[] = [];
		const state = {settled: false};
		const failing = client({timeoutMs: 100, totalTimeoutMs: 350, retries: 50, retryBaseMs: 10, onRequest: entry => log.push(entry), clock}).getSpace('a').catch((error_: unknown) => error_).finally(() => {
			state.settled = true;
		});
		// Each attempt hangs: its timeout runs out on the clock once its request has arrived, then the
		// retry's wait, until the operation's 350 ms are spent.
		for (let attempt = 1, ended = 'retry'; ended === 'retry' && attempt <= 10; attempt++) {
			await wakeWhen(clock, () => fixture.server.requests.length === attempt, `attempt ${attempt} to reach the platform`);
			ended = await waitFor(() => (state.settled ? 'settled' : (retries(log).length === attempt ? 'retry' : undefined)), {what: `attempt ${attempt} to end`});
			if (ended === 'retry') {
				clock.advance(clock.nextWakeMs() ?? 0);
			}
		}

		const error = await failing as PlatformTimeoutError;
		expect(error).toBeInstanceOf(PlatformTimeoutError);
		expect(error.code).toBe('platform-no-answer');
		// Three 100 ms attempts and the waits between them (5-10 ms, then 10-20 ms) leave 15-35 ms:
		// a fourth attempt gets what is left, or none when the next wait would not fit.
		expect(error.attempts).toBeGreaterThanOrEqual(3);
		expect(error.attempts).toBeLessThanOrEqual(4);
		expect(fixture.server.requests).toHaveLength(error.attempts);
		expect(error.data).toMatchObject({operation: 'getSpace', method: 'GET', path: '/space/a'});
		expect(error.elapsedMs).toBeGreaterThanOrEqual(300);
		// The bound, but for the last attempt's timer being whole milliseconds, rounded up.
		expect(error.elapsedMs).toBeLessThanOrEqual(351);
		expect(error.message).toMatch(new RegExp(`^GET /space/a: no answer after ${error.attempts} attempts over \\d+(\\.\\d+)? s$`));
	});

	it('an aborted signal ends the operation at once with its reason, even between attempts', async () => {
		fixture.server.setFallback(() => ({status: 503, body: {error: 'busy'}, headers: {'retry-after': '30'}}));
		const controller = new AbortController();
		const reason = new Error('stopped by the user');
		const pending = client().getSpace('a', {signal: controller.signal});
		await new Promise<void>(resolve => {
			const poll = setInterval(() => {
				if (fixture.server.requests.length > 0) {
					clearInterval(poll);
					resolve();
				}
			}, 5);
		});
		controller.abort(reason);
		await expect(pending).rejects.toBe(reason);
		expect(fixture.server.requests).toHaveLength(1);
	});

	it('a Retry-After longer than the time left ends the operation with the last answer', async () => {
		fixture.server.setFallback(() => ({status: 503, body: {error: 'busy'}, headers: {'retry-after': '30'}}));
		// Time limits far past what one loopback answer needs: the 30 s Retry-After is what is too long.
		const error = await client({timeoutMs: 20_000, totalTimeoutMs: 25_000}).getSpace('a').catch((error_: unknown) => error_) as PlatformApiError;
		expect(error).toBeInstanceOf(PlatformApiError);
		expect(error.status).toBe(503);
		expect(fixture.server.requests).toHaveLength(1);
	});
});

describe('rotation', () => {
	it('sends no body, as the contract names none', async () => {
		fixture.server.enqueue({status: 200, body: validAnswers.rotateKey});
		await expect(client().rotateKey()).resolves.toEqual(validAnswers.rotateKey);
		expect(fixture.server.requests[0]?.body).toBe('');
		// No body, but the Content-Type the contract lists for this call.
		expect(fixture.server.requests[0]?.headers['content-type']).toBe('application/json');
		expect(fixture.server.requests[0]?.headers['content-length'] ?? '0').toBe('0');
	});
});
