import {spawn} from 'node:child_process';
import {open, mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {PlatformClient, type RequestLogEntry} from '../../source/platform/client.js';
import {ManualClock} from '../../source/platform/clock.js';
import {PlatformApiError, PlatformConnectionError, PlatformTimeoutError} from '../../source/platform/errors.js';
import {clientFixture, retries, wakeWhen} from './fixture.js';
import {validAnswers} from './answers.js';
import {freePort} from '../support/free-port.js';

const fixture = clientFixture({userId: 'user_1', companyId: 'company_1'});
const {client} = fixture;

describe('operations: method, path, headers and body', () => {
	// `answer` is a valid answer of the operation (the client decodes every answer).
	const cases: Array<{name: string; call: (c: PlatformClient) => Promise<unknown>; method: string; path: string; body?: unknown; answer: unknown}> = [
		// The contract names no body for the rotation: none is sent, but its Content-Type is.
		{name: 'rotate key', call: async c => c.rotateKey(), method: 'POST', path: '/v2/keys/rotate', answer: validAnswers.rotateKey},
		{name: 'create chat', call: async c => c.createChat({title: 'T', assistantId: 'assistant_1'}), method: 'POST', path: '/space/chat', body: {title: 'T', assistantId: 'assistant_1'}, answer: validAnswers.createChat},
		{name: 'get space', call: async c => c.getSpace('assistant_1'), method: 'GET', path: '/space/assistant_1', answer: validAnswers.getSpace},
		{
			name: 'create space message',
			call: async c => c.createSpaceMessage({assistantId: 'assistant_1', chatId: 'chat_1', text: 'Hello'}),
			method: 'POST',
			path: '/space/message',
			body: {toolChoices: [], skillChoices: [], assistantId: 'assistant_1', chatId: 'chat_1', text: 'Hello'},
			answer: validAnswers.createSpaceMessage,
		},
		{name: 'get latest message', call: async c => c.getLatestMessage('chat_1'), method: 'GET', path: '/space/chat_1/messages/latest', answer: validAnswers.getLatestMessage},
		{name: 'get chat messages', call: async c => c.getChatMessages('chat_1'), method: 'GET', path: '/space/chat/chat_1/messages', answer: validAnswers.getChatMessages},
		{
			name: 'content upsert',
			call: async c => c.upsertContent({input: {key: 'a.txt', title: 'a.txt', mimeType: 'text/plain'}, chatId: 'chat_1'}),
			method: 'POST',
			path: '/content/upsert',
			body: {input: {key: 'a.txt', title: 'a.txt', mimeType: 'text/plain'}, chatId: 'chat_1'},
			answer: validAnswers.createContent,
		},
		{
			name: 'content upsert (finalize)',
			call: async c => c.finalizeContent({input: {key: 'a.txt', title: 'a.txt', mimeType: 'text/plain', byteSize: 12}, chatId: 'chat_1', fileUrl: 'http://blob/read'}),
			method: 'POST',
			path: '/content/upsert',
			body: {input: {key: 'a.txt', title: 'a.txt', mimeType: 'text/plain', byteSize: 12}, chatId: 'chat_1', fileUrl: 'http://blob/read'},
			answer: validAnswers.finalizeContent,
		},
		{
			name: 'content search',
			call: async c => c.searchContent({where: {id: {equals: 'cont_1'}}, chatId: 'chat_1', includeFailedContent: true}),
			method: 'POST',
			path: '/content/search',
			body: {where: {id: {equals: 'cont_1'}}, chatId: 'chat_1', includeFailedContent: true},
			answer: validAnswers.searchContent,
		},
		{
			name: 'search',
			call: async c => c.search({searchString: 'refunds', searchType: 'COMBINED', limit: 3, chatId: 'chat_1'}),
			method: 'POST',
			path: '/search/search',
			body: {searchString: 'refunds', searchType: 'COMBINED', limit: 3, chatId: 'chat_1'},
			answer: validAnswers.search,
		},
		{
			name: 'chat completion',
			call: async c => c.chatCompletion({model: 'AZURE_GPT_4o_2024_1120', messages: [{role: 'system', content: 'S'}, {role: 'user', content: 'U'}], options: {temperature: 0.3}}),
			method: 'POST',
			path: '/openai/chat/completions',
			body: {model: 'AZURE_GPT_4o_2024_1120', messages: [{role: 'system', content: 'S'}, {role: 'user', content: 'U'}], options: {temperature: 0.3}},
			answer: validAnswers.chatCompletion,
		},
		{
			name: 'create message log',
			call: async c => c.createMessageLog({messageId: 'msg_1', text: 'Searching', status: 'RUNNING', order: 1}),
			method: 'POST',
			path: '/message-log',
			body: {messageId: 'msg_1', text: 'Searching', status: 'RUNNING', order: 1},
			answer: validAnswers.createMessageLog,
		},
		{
			name: 'update message log',
			call: async c => c.updateMessageLog('msglog_1', {status: 'COMPLETED', text: 'Found 2 documents'}),
			method: 'PATCH',
			path: '/message-log/msglog_1',
			body: {status: 'COMPLETED', text: 'Found 2 documents'},
			answer: validAnswers.updateMessageLog,
		},
		{
			name: 'modify message',
			call: async c => c.modifyMessage('msg_2', {chatId: 'chat_1', text: 'Answer', stoppedStreamingAt: '2026-01-01T00:00:00.000Z', completedAt: '2026-01-01T00:00:00.000Z'}),
			method: 'PATCH',
			path: '/messages/msg_2',
			body: {chatId: 'chat_1', text: 'Answer', stoppedStreamingAt: '2026-01-01T00:00:00.000Z', completedAt: '2026-01-01T00:00:00.000Z'},
			answer: validAnswers.modifyMessage,
		},
	];

	cases.push(
		{name: 'retrieve message', call: async c => c.getMessage('msg_1', 'chat_1'), method: 'GET', path: '/messages/msg_1?chatId=chat_1', answer: validAnswers.getMessage},
		{name: 'list messages', call: async c => c.listMessages('chat_1'), method: 'GET', path: '/messages?chatId=chat_1', answer: validAnswers.listMessages},
		{name: 'delete chat', call: async c => c.deleteChat('chat_1'), method: 'DELETE', path: '/space/chat/chat_1', answer: validAnswers.deleteChat},
		{name: 'list models', call: async c => c.listModels(), method: 'GET', path: '/openai/models', answer: validAnswers.listModels},
	);

	/** Headers the HTTP layer adds whatever the call (not part of the platform's contract). */
	const transportHeaders = new Set(['host', 'connection', 'content-length', 'transfer-encoding']);

	for (const testCase of cases) {
		it(`${testCase.name}: the exact headers of the wire contract`, async () => {
			fixture.server.enqueue({status: 200, body: testCase.answer});
			await testCase.call(client());
			const [request] = fixture.server.requests;
			const sent = Object.fromEntries(Object.entries(request?.headers ?? {}).filter(([name]) => !transportHeaders.has(name)));
			// Content-Type on every call with a JSON body, and on POST /v2/keys/rotate, which has none.
			const json = testCase.body !== undefined || testCase.path === '/v2/keys/rotate';
			expect(sent).toEqual({
				authorization: 'Bearer sk_test_key_0001',
				'x-app-id': 'app_123',
				'x-user-id': 'user_1',
				'x-company-id': 'company_1',
				'x-api-version': '2023-12-06',
				'user-agent': expect.stringMatching(/^platform-tui\/\d+\.\d+\.\d+/) as unknown,
				accept: 'application/json',
				...(json ? {'content-type': 'application/json'} : {}),
			});
		});

		it(testCase.name, async () => {
			fixture.server.enqueue({status: 200, body: testCase.answer});
			await testCase.call(client());
			expect(fixture.server.requests).toHaveLength(1);
			const [request] = fixture.server.requests;
			expect(request?.method).toBe(testCase.method);
			expect(request?.path).toBe(testCase.path);
			expect(request?.headers.authorization).toBe('Bearer sk_test_key_0001');
			expect(request?.headers['x-app-id']).toBe('app_123');
			expect(request?.headers['x-user-id']).toBe('user_1');
			expect(request?.headers['x-company-id']).toBe('company_1');
			expect(request?.headers['x-api-version']).toBe('2023-12-06');
			expect(request?.headers['user-agent']).toMatch(/^platform-tui\/\d+\.\d+\.\d+/);
			if (testCase.body === undefined) {
				expect(request?.body).toBe('');
			} else {
				expect(request?.headers['content-type']).toBe('application/json');
				expect(JSON.parse(request?.body ?? '')).toEqual(testCase.body);
			}
		});
	}

	it('returns the parsed JSON answer', async () => {
		fixture.server.enqueue({status: 200, body: {id: 'chat_9', title: 'T', createdAt: '2026-01-01T00:00:00Z'}});
		await expect(client().createChat({title: 'T', assistantId: 'a'})).resolves.toEqual({id: 'chat_9', title: 'T', createdAt: '2026-01-01T00:00:00Z'});
	});

	it('sends the user and company named by the call instead of the defaults', async () => {
		fixture.server.enqueue({status: 200, body: validAnswers.search});
		await client().search({searchString: 'x', searchType: 'COMBINED', limit: 3}, {userId: 'user_event', companyId: 'company_event'});
		expect(fixture.server.requests[0]?.headers['x-user-id']).toBe('user_event');
		expect(fixture.server.requests[0]?.headers['x-company-id']).toBe('company_event');
	});
});

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

describe('key supplier', () => {
	it('uses a changed key on the next call', async () => {
		let key = 'sk_first_key_1111';
		const supplied = client({apiKey: () => key});
		await supplied.getSpace('a');
		key = 'sk_second_key_2222';
		await supplied.getSpace('a');
		expect(fixture.server.requests.map(request => request.headers.authorization)).toEqual(['Bearer sk_first_key_1111', 'Bearer sk_second_key_2222']);
	});
});

describe('blob upload', () => {
	let directory: string;

	beforeAll(async () => {
		directory = await mkdtemp(join(tmpdir(), 'platform-tui-blob-'));
	});

	afterAll(async () => {
		await rm(directory, {recursive: true, force: true});
	});

	it('streams a 50 MiB file with Content-Length and no platform credentials', async () => {
		const size = 50 * 1024 * 1024;
		const file = join(directory, 'big.bin');
		const handle = await open(file, 'w');
		const block = Buffer.alloc(1024 * 1024, 7);
		for (let written = 0; written < size; written += block.length) {
			await handle.write(block);
		}

		await handle.close();
		// The blob host runs in its own process so only the uploader's memory is measured here.
		const sink = await startBlobSink();
		try {
			const upload = async () => {
				// RSS, and the memory JavaScript holds (heap and buffers), where a buffered body would show.
				const held = (usage: NodeJS.MemoryUsage) => usage.heapUsed + usage.arrayBuffers;
				const start = process.memoryUsage();
				let peak = start.rss;
				let peakHeld = held(start);
				const sampler = setInterval(() => {
					const usage = process.memoryUsage();
					peak = Math.max(peak, usage.rss);
					peakHeld = Math.max(peakHeld, held(usage));
				}, 5);
				const progress: number[] = [];
				await client().putBlob(`${sink.url}/blob/cont_1?token=secret-token`, {
					filePath: file,
					contentType: 'application/octet-stream',
					onProgress: sent => progress.push(sent),
				});
				clearInterval(sampler);
				const end = process.memoryUsage();
				return {growth: Math.max(peak, end.rss) - start.rss, heldGrowth: Math.max(peakHeld, held(end)) - held(start), progress};
			};

			const first = await upload();
			const received = await sink.lastRequest();
			expect(received.method).toBe('PUT');
			expect(received.url).toBe('/blob/cont_1?token=secret-token');
			expect(received.headers['content-length']).toBe(String(size));
			expect(received.headers['content-type']).toBe('application/octet-stream');
			expect(received.headers['x-ms-blob-type']).toBe('BlockBlob');
			expect(received.headers.authorization).toBeUndefined();
			expect(received.headers['x-app-id']).toBeUndefined();
			expect(received.bytes).toBe(size);
			expect(first.progress.at(-1)).toBe(size);
			expect(first.progress.length).toBeGreaterThan(100);
			// A buffered body would cost at least the 50 MiB sent. The file goes through two reused
			// 256 KiB buffers: what JavaScript holds stays flat, upload after upload. RSS also counts
			// the native allocator's pages (the file reads run on libuv's thread pool, whose arenas
			// grow and shrink on their own), so it gets a bound well under the file's size.
			expect(first.growth).toBeLessThan(40 * 1024 * 1024);
			expect(first.heldGrowth).toBeLessThan(10 * 1024 * 1024);
			const second = await upload();
			expect(second.growth).toBeLessThan(40 * 1024 * 1024);
			expect(second.heldGrowth).toBeLessThan(10 * 1024 * 1024);
		} finally {
			sink.close();
		}
	});

	it('the blob PUT carries exactly the headers of the upload contract, and no platform credentials', async () => {
		const file = join(directory, 'exact.txt');
		const handle = await open(file, 'w');
		await handle.write('exact headers');
		await handle.close();
		fixture.server.enqueue({status: 201});
		await client().putBlob(`${fixture.server.url}/blob/cont_3?token=t`, {filePath: file, contentType: 'text/plain'});
		const sent = Object.fromEntries(Object.entries(fixture.server.requests[0]?.headers ?? {}).filter(([name]) => !['host', 'connection', 'transfer-encoding'].includes(name)));
		expect(sent).toEqual({
			'content-type': 'text/plain',
			'x-ms-blob-type': 'BlockBlob',
			'content-length': '13',
			'user-agent': expect.stringMatching(/^platform-tui\/\d+\.\d+\.\d+/) as unknown,
		});
	});

	it('re-opens the file to retry a failed PUT, and reports a final non-2xx with status and host', async () => {
		const file = join(directory, 'small.txt');
		const handle = await open(file, 'w');
		await handle.write('hello blob');
		await handle.close();
		fixture.server.enqueue({status: 503, body: {error: 'busy'}}, {status: 201});
		await client().putBlob(`${fixture.server.url}/blob/cont_2?token=t`, {filePath: file, contentType: 'text/plain'});
		expect(fixture.server.requests.map(request => request.bytes)).toEqual([10, 10]);
		fixture.server.requests.length = 0;
		fixture.server.setFallback(() => ({status: 403, body: {error: 'signature expired'}}));
		const error = await client().putBlob(`${fixture.server.url}/blob/cont_2?token=t`, {filePath: file, contentType: 'text/plain'}).catch((error_: unknown) => error_) as PlatformApiError;
		expect(error).toBeInstanceOf(PlatformApiError);
		expect(error.status).toBe(403);
		expect(error.message).toContain('PUT 127.0.0.1');
		expect(error.message).not.toContain('token=');
	});
});

/** A blob host in a child process: counts the bytes of each PUT and reports the last request. */
async function startBlobSink(): Promise<{url: string; lastRequest: () => Promise<{method: string; url: string; headers: Record<string, string>; bytes: number}>; close: () => void}> {
	const source = `
		const http = require('node:http');
		let last = null;
		const server = http.createServer((request, response) => {
			if (request.url === '/last') {
				response.end(JSON.stringify(last));
				return;
			}
			let bytes = 0;
			request.on('data', chunk => { bytes += chunk.length; });
			request.on('end', () => {
				last = {method: request.method, url: request.url, headers: request.headers, bytes};
				response.writeHead(201, {'content-type': 'application/json'});
				response.end('{}');
			});
		});
		server.listen(0, '127.0.0.1', () => process.stdout.write(String(server.address().port) + '\\n'));
	`;
	const child = spawn(process.execPath, ['-e', source], {stdio: ['ignore', 'pipe', 'inherit']});
	const port = await new Promise<string>(resolve => {
		child.stdout.setEncoding('utf8').once('data', (chunk: string) => {
			resolve(chunk.trim());
		});
	});
	const url = `http://127.0.0.1:${port}`;
	return {
		url,
		async lastRequest() {
			const response = await fetch(`${url}/last`);
			return response.json() as Promise<{method: string; url: string; headers: Record<string, string>; bytes: number}>;
		},
		close() {
			child.kill();
		},
	};
}
