import {describe, expect, it} from 'vitest';
import type {RequestLogEntry} from '../../source/platform/client.js';
import {ManualClock} from '../../source/platform/clock.js';
import {PlatformApiError, PlatformConnectionError} from '../../source/platform/errors.js';
import {retries, wakeWhen} from './fixture.js';
import {clientSuiteFixture} from './client-support.js';

const fixture = clientSuiteFixture();
const {client} = fixture;

describe('retries', () => {
	it('retries a 429 after the Retry-After it names, then succeeds', async () => {
		fixture.server.enqueue({status: 429, body: {error: 'slow down'}, headers: {'retry-after': '1'}}, {status: 200, body: {name: 'Space'}});
		const log: RequestLogEntry[] = [];
		const clock = new ManualClock();
		const answer = client({onRequest: entry => log.push(entry), clock}).getSpace('a');
		// The client waits the second the platform named on its clock before the second attempt.
		expect(await wakeWhen(clock, () => retries(log).length === 1, 'the retry after the 429')).toBe(1000);
		await expect(answer).resolves.toEqual({name: 'Space'});
		expect(fixture.server.requests).toHaveLength(2);
		expect(log.find(entry => entry.retryInMs !== undefined)).toMatchObject({retryInMs: 1000, reason: 'HTTP 429'});
	});

	it('names why each retry happens: the system code of a reset, a timeout', async () => {
		fixture.server.enqueue({status: 0, reset: true}, {status: 0, hang: true}, {status: 200, body: {name: 'Space'}});
		const log: RequestLogEntry[] = [];
		const clock = new ManualClock();
		const answer = client({onRequest: entry => log.push(entry), timeoutMs: 5000, retryBaseMs: 10, clock}).getSpace('a');
		await wakeWhen(clock, () => retries(log).length === 1, 'the retry after the reset');
		// The second attempt reaches the platform, which never answers: its 5 s run out on the clock.
		expect(await wakeWhen(clock, () => fixture.server.requests.length === 2, 'the hanging attempt')).toBe(5000);
		await wakeWhen(clock, () => retries(log).length === 2, 'the retry after the timeout');
		await expect(answer).resolves.toEqual({name: 'Space'});
		expect(fixture.server.requests).toHaveLength(3);
		expect(retries(log).map(entry => entry.reason)).toEqual(['ECONNRESET', 'a timeout']);
	});

	it('retries a 503 then succeeds', async () => {
		fixture.server.enqueue({status: 503, body: {message: 'unavailable'}}, {status: 200, body: {name: 'Space'}});
		await expect(client().getSpace('a')).resolves.toEqual({name: 'Space'});
		expect(fixture.server.requests).toHaveLength(2);
	});

	it('does not retry a 400', async () => {
		fixture.server.enqueue({status: 400, body: {error: {message: 'bad input'}}});
		await expect(client().getSpace('a')).rejects.toBeInstanceOf(PlatformApiError);
		expect(fixture.server.requests).toHaveLength(1);
	});

	it('gives up after the configured retries (3 by default: 4 attempts)', async () => {
		fixture.server.setFallback(() => ({status: 502, body: {message: 'bad gateway'}}));
		const error = await client().getSpace('a').catch((error_: unknown) => error_);
		expect(error).toBeInstanceOf(PlatformApiError);
		expect((error as PlatformApiError).status).toBe(502);
		expect(fixture.server.requests).toHaveLength(4);
	});

	it('retries a connection reset for idempotent calls', async () => {
		fixture.server.enqueue({status: 0, reset: true}, {status: 200, body: {messages: []}});
		await expect(client().getChatMessages('chat_1')).resolves.toEqual({messages: []});
		expect(fixture.server.requests).toHaveLength(2);
	});

	it('does not retry POST /space/message after a reset or a 500, where it may have been processed', async () => {
		fixture.server.enqueue({status: 0, reset: true});
		await expect(client().createSpaceMessage({assistantId: 'a', chatId: 'c', text: 't'})).rejects.toBeInstanceOf(PlatformConnectionError);
		expect(fixture.server.requests).toHaveLength(1);
		fixture.server.requests.length = 0;
		fixture.server.enqueue({status: 500, body: {error: 'boom'}});
		await expect(client().createSpaceMessage({assistantId: 'a', chatId: 'c', text: 't'})).rejects.toBeInstanceOf(PlatformApiError);
		expect(fixture.server.requests).toHaveLength(1);
	});

	it('retries POST /space/message on 429 and on 503 with Retry-After, where it was provably not processed', async () => {
		fixture.server.enqueue(
			{status: 429, body: {error: 'rate limited'}},
			{status: 503, body: {error: 'busy'}, headers: {'retry-after': '0'}},
			{status: 200, body: {id: 'msg_1', chatId: 'c'}},
		);
		await expect(client().createSpaceMessage({assistantId: 'a', chatId: 'c', text: 't'})).resolves.toEqual({id: 'msg_1', chatId: 'c'});
		expect(fixture.server.requests).toHaveLength(3);
		fixture.server.requests.length = 0;
		fixture.server.enqueue({status: 503, body: {error: 'busy'}});
		await expect(client().createSpaceMessage({assistantId: 'a', chatId: 'c', text: 't'})).rejects.toBeInstanceOf(PlatformApiError);
		expect(fixture.server.requests).toHaveLength(1);
	});
});
