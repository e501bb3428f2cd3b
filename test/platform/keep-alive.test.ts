/**
 * The client's pooled connections close before the server would close them: a request sent on a
 * connection the server is closing at that instant ends with ECONNRESET, and a create that may have
 * been processed is not sent again (create-not-sent.test.ts). The server's `Keep-Alive: timeout=N`
 * hint is honoured, a second early.
 */
import http from 'node:http';
import {once} from 'node:events';
import type {AddressInfo, Socket} from 'node:net';
import {describe, expect, it} from 'vitest';
import {createTransport} from '../../source/platform/transport.js';
import {defined} from '../support/defined.js';
import {closersAfterEach} from '../support/cleanups.js';

const cleanups = closersAfterEach();

describe('platform transport: idle pooled connections', () => {
	it('closes an idle connection itself, a second before the server\'s keep-alive hint', async () => {
		const server = http.createServer((request, response) => {
			request.resume();
			response.end('{}');
		});
		// Node announces it as `Keep-Alive: timeout=2`; the client should let go after 1 s idle.
		server.keepAliveTimeout = 2000;
		const sockets: Socket[] = [];
		server.on('connection', (socket: Socket) => sockets.push(socket));
		server.listen(0, '127.0.0.1');
		await once(server, 'listening');
		cleanups.push(async () => {
			server.closeAllConnections();
			await new Promise(resolve => {
				server.close(resolve);
			});
		});
		const transport = createTransport({connectTimeoutMs: 5000});
		cleanups.push(async () => transport.close());

		const {port} = server.address() as AddressInfo;
		const response = await transport.request(new URL(`http://127.0.0.1:${String(port)}/`), {method: 'GET', headers: {}, signal: AbortSignal.timeout(10_000)});
		expect(response.headers['keep-alive']).toBe('timeout=2');
		expect(sockets).toHaveLength(1);
		const socket = defined(sockets[0], 'the connection');
		// 'end' on the server's side: the client sent its FIN (the server's own timeout destroys the
		// socket without one). Bounded by the server's 2 s: a client that waits that long loses.
		const ended = await Promise.race([once(socket, 'end').then(() => 'client closed'), once(socket, 'close').then(() => 'server closed first')]);
		expect(ended).toBe('client closed');
	});
});
