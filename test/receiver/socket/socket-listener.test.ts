/**
 * The make-before-break listener against a socket of the test's own: frames that are not JSON or
 * have no id are skipped and counted, copies dropped by id, and a socket that closes every stream
 * at once is retried with a growing backoff, never in a hot loop; after a restart the downtime gap
 * ends at the first event the new stream brings.
 */
import {mkdtempSync, writeFileSync} from 'node:fs';
import {rm} from 'node:fs/promises';
import {createServer, type ServerResponse} from 'node:http';
import type {AddressInfo} from 'node:net';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {expect, it} from 'vitest';
import {coverageFileName} from '../../../source/receiver/socket/coverage.js';
import {SocketListener, type SocketEvent} from '../../../source/receiver/socket/socket-listener.js';
import {waitFor} from '../../support/wait.js';
import {closersAfterEach} from '../../support/cleanups.js';

const cleanups = closersAfterEach();

async function socketServer(onStream: (response: ServerResponse, count: number) => void): Promise<{url: string; streams: () => number}> {
	let count = 0;
	const server = createServer((_request, response) => {
		response.writeHead(200, {'content-type': 'text/event-stream'});
		onStream(response, ++count);
	});
	await new Promise<void>(resolve => {
		server.listen(0, '127.0.0.1', resolve);
	});
	cleanups.push(async () => {
		server.closeAllConnections();
		await new Promise(resolve => {
			server.close(resolve);
		});
	});
	return {url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/s?subscriptions=a`, streams: () => count};
}

function listener(url: string, events: SocketEvent[], texts: string[], options: Partial<ConstructorParameters<typeof SocketListener>[0]> = {}): SocketListener {
	const socket = new SocketListener({url, identity: () => ({apiKey: 'k', appId: 'a', userId: 'u', companyId: 'c'}), onEvent: text => texts.push(text), onSocketEvent: event => events.push(event), liveAfterMs: 20, reconnectEveryMs: 60_000, backoffBaseMs: 40, random: () => 0, ...options});
	cleanups.push(async () => socket.close());
	socket.start();
	return socket;
}

it('skips frames that are not JSON or have no id (counted), and drops a second copy by id', async () => {
	const server = await socketServer(response => {
		response.write('data: not json\n\ndata: {"event":"x"}\n\ndata: {"id":"evt_1"}\n\ndata: {"id":"evt_1"}\n\ndata: {"id":"evt_2"}\n\n');
	});
	const events: SocketEvent[] = [];
	const texts: string[] = [];
	const socket = listener(server.url, events, texts);
	await waitFor(() => texts.length === 2);
	expect(texts).toEqual(['{"id":"evt_1"}', '{"id":"evt_2"}']);
	expect(events.filter(event => event.type === 'frame-skipped').map(event => (event as {reason: string}).reason)).toEqual(['not-json', 'no-id']);
	await waitFor(() => socket.status().state === 'live');
	expect(socket.status()).toMatchObject({skipped: 2, copiesDropped: 1, events: 2, gaps: 0});
});

it('a socket that closes every stream at once is retried with a growing backoff', async () => {
	const server = await socketServer(response => {
		response.end();
	});
	const events: SocketEvent[] = [];
	const started = Date.now();
	listener(server.url, events, []);
	await waitFor(() => server.streams() >= 6, {what: 'six streams'});
	// Waits of 0, 20, 40, 80, 160 ms at least (base 40, jitter at its low end): no hot loop.
	expect(Date.now() - started).toBeGreaterThanOrEqual(300);
	expect(events.filter(event => event.type === 'stream-closed').map(event => (event as {live: boolean}).live)).not.toContain(true);
});

it('opens a fresh stream before the old one closes, and closes the old one once the new one is live', async () => {
	const server = await socketServer((response, count) => {
		response.write(`data: {"id":"evt_${count}"}\n\n`);
	});
	const events: SocketEvent[] = [];
	const socket = listener(server.url, events, [], {reconnectEveryMs: 100});
	await waitFor(() => events.filter(event => event.type === 'stream-closed').length >= 3, {what: 'three replaced streams'});
	const closed = events.filter(event => event.type === 'stream-closed');
	expect(new Set(closed.map(event => (event as {reason: string}).reason))).toEqual(new Set(['replaced']));
	expect(socket.status()).toMatchObject({gaps: 0, state: 'live'});
});

it('after a restart, the downtime gap ends at the first event of the new stream, not when it would count as live', async () => {
	const directory = mkdtempSync(path.join(tmpdir(), 'platform-tui-coverage-'));
	cleanups.push(async () => rm(directory, {recursive: true, force: true}));
	const killedAt = Date.now() - 10_000;
	writeFileSync(path.join(directory, coverageFileName), JSON.stringify({coveredUntil: new Date(killedAt).toISOString()}));
	const server = await socketServer(response => {
		response.write('data: {"id":"evt_first"}\n\n');
	});
	const events: SocketEvent[] = [];
	const texts: string[] = [];
	const started = Date.now();
	// Counted live only after a minute, unless an event says so sooner.
	const socket = listener(server.url, events, texts, {liveAfterMs: 60_000, coverageDirectory: directory});
	await waitFor(() => texts.length === 1, {what: 'the first event'});
	const gap = events.find((event): event is Extract<SocketEvent, {type: 'gap'}> => event.type === 'gap');
	expect(gap).toMatchObject({downtime: true, from: new Date(killedAt).toISOString()});
	expect(Date.parse(gap?.to ?? '')).toBeGreaterThanOrEqual(started);
	expect(Date.parse(gap?.to ?? '')).toBeLessThan(started + 60_000);
	expect(socket.status()).toMatchObject({gaps: 1, state: 'live'});
});
