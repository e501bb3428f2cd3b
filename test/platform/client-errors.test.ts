import {describe, expect, it} from 'vitest';
import {ManualClock} from '../../source/platform/clock.js';
import {PlatformApiError, PlatformConnectionError, PlatformTimeoutError} from '../../source/platform/errors.js';
import {wakeWhen} from './fixture.js';
import {clientSuiteFixture} from './client-support.js';
import {freePort} from '../support/free-port.js';

const fixture = clientSuiteFixture();
const {client} = fixture;

describe('errors', () => {
	it('carries status, the platform message, Request-Id, method and path on a 4xx', async () => {
		fixture.server.enqueue({status: 404, body: {error: {message: 'Space not found'}}, headers: {'request-id': 'req_abc'}});
		const error = await client().getSpace('missing').catch((error_: unknown) => error_) as PlatformApiError;
		expect(error).toBeInstanceOf(PlatformApiError);
		expect(error.status).toBe(404);
		expect(error.platformMessage).toBe('Space not found');
		expect(error.requestId).toBe('req_abc');
		expect(error.method).toBe('GET');
		expect(error.path).toBe('/space/missing');
		expect(error.message).toBe('GET /space/missing failed with HTTP 404: Space not found (request id req_abc)');
	});

	it('reads the message from `error` (string), `error.message` or `message`', async () => {
		fixture.server.enqueue({status: 422, body: {error: 'plain'}}, {status: 422, body: {message: 'top-level'}}, {status: 422, body: 'not an object'});
		const first = await client().getSpace('a').catch((error_: unknown) => error_) as PlatformApiError;
		const second = await client().getSpace('a').catch((error_: unknown) => error_) as PlatformApiError;
		const third = await client().getSpace('a').catch((error_: unknown) => error_) as PlatformApiError;
		expect(first.platformMessage).toBe('plain');
		expect(second.platformMessage).toBe('top-level');
		expect(third.platformMessage).toBe('"not an object"');
	});

	it('reports a 5xx with its fields once the retries are spent', async () => {
		fixture.server.setFallback(() => ({status: 500, body: {error: 'internal'}, headers: {'request-id': 'req_5xx'}}));
		const error = await client({retries: 1}).chatCompletion({model: 'm', messages: []}).catch((error_: unknown) => error_) as PlatformApiError;
		expect(error.status).toBe(500);
		expect(error.requestId).toBe('req_5xx');
		expect(error.path).toBe('/openai/chat/completions');
		expect(fixture.server.requests).toHaveLength(2);
	});

	it('reports connection refused as a connection error naming the target', async () => {
		const port = await freePort();
		const refused = client({baseUrl: `http://127.0.0.1:${port}`, retries: 1});
		const error = await refused.getSpace('a').catch((error_: unknown) => error_) as PlatformConnectionError;
		expect(error).toBeInstanceOf(PlatformConnectionError);
		// `code` is the error's own code now (a CoreError); the system's code moved to `systemCode`.
		expect(error.code).toBe('platform-connection-refused');
		expect(error.systemCode).toBe('ECONNREFUSED');
		expect(error.method).toBe('GET');
		expect(error.path).toBe('/space/a');
		expect(error.message).toContain(`127.0.0.1:${port}`);
	});

	it('times out a request that never answers', async () => {
		fixture.server.enqueue({status: 0, hang: true});
		const clock = new ManualClock();
		const failing = client({timeoutMs: 300, retries: 0, clock}).getSpace('a').catch((error_: unknown) => error_);
		expect(await wakeWhen(clock, () => fixture.server.requests.length === 1, 'the request to reach the platform')).toBe(300);
		const error = await failing as PlatformTimeoutError;
		expect(error).toBeInstanceOf(PlatformTimeoutError);
		expect(error.code).toBe('platform-no-answer');
		expect(error.timeoutMs).toBe(300);
		expect(error.data).toMatchObject({operation: 'getSpace', method: 'GET', path: '/space/a', attempts: 1, elapsedMs: 300, timeoutMs: 300});
	});

	it('gives an attempt 15 s by default', async () => {
		fixture.server.enqueue({status: 0, hang: true});
		const clock = new ManualClock();
		const failing = client({retries: 0, clock}).getSpace('a').catch((error_: unknown) => error_);
		expect(await wakeWhen(clock, () => fixture.server.requests.length === 1, 'the request to reach the platform')).toBe(15_000);
		const error = await failing as PlatformTimeoutError;
		expect(error).toBeInstanceOf(PlatformTimeoutError);
		expect(error.data).toMatchObject({attempts: 1, elapsedMs: 15_000, timeoutMs: 15_000});
	});

	it('never puts the key into an error message, even when the platform echoes it', async () => {
		fixture.server.enqueue({status: 401, body: {error: 'Invalid key sk_test_key_0001'}});
		const error = await client().getSpace('a').catch((error_: unknown) => error_) as PlatformApiError;
		expect(error.message).not.toContain('sk_test_key_0001');
		expect(error.message).toContain('…0001');
	});
});
