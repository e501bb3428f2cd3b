/**
 * A create (POST /message-log) is sent again only when the platform provably did not get it: the
 * connection broke before the request's last byte left this process. One that broke after the
 * whole request was sent may have been processed, so it is not repeated.
 */
import http from 'node:http';
import net from 'node:net';
import {describe, expect, it} from 'vitest';
import {PlatformClient} from '../../source/platform/client.js';
import {PlatformConnectionError} from '../../source/platform/errors.js';
import {closersAfterEach} from '../support/cleanups.js';

const cleanups = closersAfterEach();

/**
 * A loopback platform whose first connection is reset: after its first bytes (`early`), or once the
 * whole request arrived (`late`). Later connections are answered by an HTTP server that counts the
 * creates it processes.
 */
async function resettingPlatform(when: 'early' | 'late'): Promise<{url: string; connections: () => number; creates: () => number}> {
	let creates = 0;
	let connections = 0;
	const api = http.createServer((request, response) => {
		request.resume();
		request.on('end', () => {
			creates++;
			response.writeHead(201, {'content-type': 'application/json'});
			response.end(JSON.stringify({id: 'log_1', messageId: 'msg_1', text: 'Searching', status: 'RUNNING', order: 1, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z'}));
		});
	});
	const front = net.createServer(socket => {
		connections++;
		if (connections > 1) {
			api.emit('connection', socket);
			return;
		}

		socket.on('data', (chunk: Buffer) => {
			// The body's last field ends the request: the whole of it arrived.
			if (when === 'early' || chunk.includes('"order":1}')) {
				socket.resetAndDestroy();
			}
		});
		socket.on('error', () => undefined);
	});
	await new Promise<void>(resolve => {
		front.listen(0, '127.0.0.1', resolve);
	});
	const {port} = front.address() as net.AddressInfo;
	cleanups.push(async () => {
		await new Promise<void>(resolve => {
			front.close(() => {
				resolve();
			});
			api.closeAllConnections();
		});
	});
	return {url: `http://127.0.0.1:${port}`, connections: () => connections, creates: () => creates};
}

function clientFor(url: string): PlatformClient {
	const client = new PlatformClient({baseUrl: url, apiKey: 'sk_test_key', appId: 'app_test', retries: 3, retryBaseMs: 5, retryCapMs: 20});
	cleanups.push(async () => client.close());
	return client;
}

// Big enough that the request is still being written when the first bytes are answered with a reset.
const longText = 'Searching '.repeat(800_000);

describe('a create whose connection broke', () => {
	it('is sent again when the reset came before the whole request was sent, and made once', async () => {
		const platform = await resettingPlatform('early');
		const log = await clientFor(platform.url).createMessageLog({messageId: 'msg_1', text: longText, status: 'RUNNING', order: 1});
		expect(log.id).toBe('log_1');
		expect(platform.connections()).toBe(2);
		expect(platform.creates()).toBe(1);
	});

	it('is not sent again when the whole request was sent before the reset (it may have been processed)', async () => {
		const platform = await resettingPlatform('late');
		const failure = await clientFor(platform.url).createMessageLog({messageId: 'msg_1', text: 'Searching', status: 'RUNNING', order: 1}).catch((error: unknown) => error);
		expect(failure).toBeInstanceOf(PlatformConnectionError);
		expect((failure as PlatformConnectionError).notSent).toBe(false);
		expect(platform.connections()).toBe(1);
		expect(platform.creates()).toBe(0);
	});
});
