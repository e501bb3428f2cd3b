/**
 * `npm run bench -- listen`: the local platform publishes events on its event socket, `listen`
 * (in this process, journal in a temporary folder) stores and forwards each to a handler on
 * loopback. Printed: events per second from the first publish to the last forward, for a burst
 * published as fast as the platform takes them, and the publish-to-forward latency p50/p99 at a
 * steady 500 events/s. Goals: at least 2 000 events/s, p99 at most 50 ms.
 */
import {mkdtempSync, rmSync} from 'node:fs';
import {createServer} from 'node:http';
import type {AddressInfo} from 'node:net';
import {tmpdir} from 'node:os';
import path from 'node:path';
import listen from '../../source/commands/listen/listen.js';
import {startLocalPlatform, type LocalPlatform} from '../../source/local-platform/index.js';
import {eventTypes} from '../../source/platform/types.js';
import {platformEnv} from '../support/platform.js';
import {startCommand} from '../support/run-command.js';
import {percentile} from './receiver-harness.js';

const root = mkdtempSync(path.join(tmpdir(), 'bench-listen-'));
const arrived = new Map<string, number>();
const handler = createServer((request, response) => {
	const id = String(request.headers['x-platform-id']);
	request.resume();
	request.on('end', () => {
		arrived.set(id, performance.now());
		response.writeHead(200, {'content-type': 'application/json'}).end('{}');
	});
});
await new Promise<void>(resolve => {
	handler.listen(0, '127.0.0.1', resolve);
});
const platform: LocalPlatform = await startLocalPlatform({eventSocketGoLiveMs: 50});
const stop = new AbortController();
const running = startCommand(listen, {
	flags: {forwardTo: `http://127.0.0.1:${(handler.address() as AddressInfo).port}/webhook`, dataDir: path.join(root, 'data'), overlap: '200ms', concurrency: 32},
	env: {...platformEnv(platform), PLATFORM_TUI_CONFIG_DIR: path.join(root, 'config')},
	signal: stop.signal,
});

function publish(id: string): void {
	platform.publishEvent({id, version: '1.0.0', event: eventTypes.userMessageCreated, createdAt: String(Math.floor(Date.now() / 1000)), userId: platform.userId, companyId: platform.companyId, payload: {chatId: 'chat_bench', assistantId: 'assistant_bench', text: id}});
}

async function until(check: () => boolean, what: string, limitMs = 120_000): Promise<void> {
	const deadline = Date.now() + limitMs;
	while (!check()) {
		if (Date.now() > deadline) {
			throw new Error(`bench: ${what} did not happen in ${limitMs} ms\n${running.stderr()}`);
		}

		await new Promise(resolve => {
			setTimeout(resolve, 5);
		});
	}
}

/** A burst of `count` events, published in slices so the socket's writes go out as they come. */
async function burst(count: number): Promise<{perSecond: number; ms: number}> {
	const started = performance.now();
	for (let index = 0; index < count; index++) {
		publish(`evt_burst_${index}`);
		if (index % 200 === 199) {
			await new Promise(resolve => {
				setImmediate(resolve);
			});
		}
	}

	await until(() => arrived.size >= count, 'the burst to be forwarded');
	const ms = Math.max(...[...arrived.values()]) - started;
	return {perSecond: count / (ms / 1000), ms};
}

/** `perSecond` events a second for `seconds`: the latency of each from its publish to its forward. */
async function steady(perSecond: number, seconds: number): Promise<{p50: number; p99: number; count: number}> {
	const published = new Map<string, number>();
	const total = perSecond * seconds;
	const started = performance.now();
	let sent = 0;
	while (sent < total) {
		const due = Math.min(total, Math.floor((performance.now() - started) * perSecond / 1000));
		while (sent < due) {
			const id = `evt_steady_${sent++}`;
			published.set(id, performance.now());
			publish(id);
		}

		await new Promise(resolve => {
			setTimeout(resolve, 2);
		});
	}

	await until(() => [...published.keys()].every(id => arrived.has(id)), 'the steady events to be forwarded');
	const latencies = [...published].map(([id, at]) => (arrived.get(id) ?? at) - at).sort((a, b) => a - b);
	return {p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), count: latencies.length};
}

try {
	await until(() => platform.eventSocket.open > 0, 'a stream to open');
	// Past the stream's go-live delay: a probe reaches it.
	await until(() => {
		publish('evt_probe');
		return arrived.has('evt_probe');
	}, 'a live stream');
	arrived.clear();
	const fast = await burst(5000);
	arrived.clear();
	const timed = await steady(500, 10);
	const ok = (met: boolean) => met ? 'met' : 'NOT met';
	console.log(`listen, publish → store → forward on loopback (journal, --concurrency 32):`);
	console.log(`  burst of 5000:     ${Math.round(fast.perSecond)} events/s (${Math.round(fast.ms)} ms)   goal ≥ 2000 events/s: ${ok(fast.perSecond >= 2000)}`);
	console.log(`  500 events/s, 10 s: p50 ${timed.p50.toFixed(1)} ms, p99 ${timed.p99.toFixed(1)} ms (${timed.count} events)   goal p99 ≤ 50 ms: ${ok(timed.p99 <= 50)}`);
} finally {
	stop.abort();
	await running.done.catch(() => undefined);
	await platform.close();
	handler.close();
	rmSync(root, {recursive: true, force: true});
}
