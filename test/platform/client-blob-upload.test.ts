import {spawn} from 'node:child_process';
import {open, mkdtemp, rm} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {PlatformApiError} from '../../source/platform/errors.js';
import {clientSuiteFixture} from './client-support.js';

const fixture = clientSuiteFixture();
const {client} = fixture;

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
