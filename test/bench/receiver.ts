/**
 * Receiver benchmark (`npm run bench`, or `node --import tsx test/bench/receiver.ts` after
 * `npm run build`).
 *
 * 1. Throughput of verified webhooks: the built CLI `platform-tui serve` with its journal on (a
 *    fresh data directory; every 200 waits for the event's LMDB commit) (its own process, NDJSON
 *    log to a file) against a bare node:http server (its own process)
 *    that only reads the body and answers 200. Same load generator for both: an undici Pool with
 *    32 connections sending a fixed number of pre-signed `platform.chat.user-message.created`
 *    deliveries (fresh ids, so none is a duplicate) over loopback. User-message events are used
 *    because they exercise the whole verified path (body read, HMAC, Created-At, JSON, exactly-once
 *    store, log line) without the platform calls of a chosen-module job, which would measure the
 *    platform rather than the receiver. Each round runs every server side by side (the order
 *    rotating), and each printed ratio is the median of the rounds' ratios to bare (goals:
 *    throughput ≥ 0.85, CPU per request ≤ 1.5), with p50/p99 latency and, on Linux, each server's
 *    CPU time per request.
 *    A third server runs beside them as the floor of any receiver that persists before its 200
 *    on this machine: bare node:http that appends each body to a preallocated file and answers
 *    once an `fdatasync` covering it returns (group commit: one flush for every body that arrived
 *    meanwhile). Nothing else (no verification, no JSON, no index): what it loses to bare is the
 *    flush alone, on this disk, at this concurrency.
 *    The child-process setup is chosen so the figure is the one a user gets from the command,
 *    including its argument parsing, logging and process, and so that the load generator and the
 *    server never share an event loop.
 * 2. Ack latency of chosen-module events while each completion takes 2 s: the local platform runs
 *    in this process with `llmUrl` pointing at a model that answers after 2 s; 16 chosen events for
 *    real assistant messages are sent one after another to `serve` (concurrency 8), and the time
 *    to each 200 is printed next to the time until its answer was written.
 */
import {spawn, type ChildProcess} from 'node:child_process';
import {closeSync, mkdtempSync, openSync, readFileSync, rmSync} from 'node:fs';
import {createServer, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {setTimeout as sleep} from 'node:timers/promises';
import {fileURLToPath} from 'node:url';
import {Pool} from 'undici';
import {startLocalPlatform, type LocalPlatform} from '../../source/local-platform/index.js';
import {PlatformClient} from '../../source/platform/client.js';
import {buildTestEvent, signDelivery} from '../../source/receiver/test-event.js';
import {defined} from '../support/defined.js';

const here = fileURLToPath(import.meta.url);
const root = path.resolve(path.dirname(here), '../..');
const cliPath = path.join(root, 'dist/cli.js');

const requestCount = Number(process.env.BENCH_RECEIVER_REQUESTS ?? 10_000);
const warmupCount = 3000;
const connections = 32;
const secret = 'whsec_bench_0123456789abcdef';

type Delivery = {body: string; headers: Record<string, string>};

type LoadResult = {durationMs: number; perSecond: number; p50: number; p99: number; non200: number};

function percentile(sorted: number[], fraction: number): number {
	if (sorted.length === 0) {
		return Number.NaN;
	}

	return defined(sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))], 'a latency');
}

/** Fresh, signed user-message deliveries (signed before the clock starts). */
function deliveries(count: number): Delivery[] {
	const out: Delivery[] = [];
	for (let index = 0; index < count; index++) {
		const event = buildTestEvent('user-message', {text: `Benchmark message ${index}: what does the harbour lighthouse keeper write?`, chatId: 'chat_bench', userId: 'user_bench', companyId: 'company_bench'});
		out.push(signDelivery(event, secret));
	}

	return out;
}

/** Sends every delivery with `connections` in flight; returns throughput and latency. */
async function load(url: string, items: Delivery[]): Promise<LoadResult> {
	const origin = new URL(url).origin;
	const pool = new Pool(origin, {connections, pipelining: 1, keepAliveTimeout: 10_000});
	const latencies: number[] = [];
	let next = 0;
	let non200 = 0;
	const started = performance.now();
	const worker = async () => {
		while (next < items.length) {
			const item = defined(items[next++], 'a delivery');
			const sent = performance.now();
			const response = await pool.request({path: '/webhook', method: 'POST', headers: item.headers, body: item.body});
			await response.body.text();
			latencies.push(performance.now() - sent);
			if (response.statusCode !== 200) {
				non200++;
			}
		}
	};

	await Promise.all(Array.from({length: connections}, worker));
	const durationMs = performance.now() - started;
	await pool.close();
	latencies.sort((a, b) => a - b);
	return {durationMs, perSecond: (items.length / durationMs) * 1000, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), non200};
}

type Child = {child: ChildProcess; url: string; lines(): string[]; stop(signal?: NodeJS.Signals): Promise<number | null>};

/**
 * Starts a child whose first stdout line is JSON with `url`. Its stdout goes to a file, as a
 * deployed receiver's log would, so this process (the load generator) never spends time reading
 * the child's log.
 */
async function startChild(command: string[], env: NodeJS.ProcessEnv, logFile: string): Promise<Child> {
	const out = openSync(logFile, 'w');
	const child = spawn(process.execPath, command, {env, stdio: ['ignore', out, 'inherit'], cwd: root});
	closeSync(out);
	const closed = new Promise<number | null>(resolve => {
		child.on('close', code => {
			resolve(code);
		});
	});
	const lines = () => readFileSync(logFile, 'utf8').split('\n').filter(line => line !== '');
	let first: string | undefined;
	for (let attempt = 0; attempt < 600 && first === undefined; attempt++) {
		if (child.exitCode !== null) {
			throw new Error(`${command.join(' ')} exited with ${String(child.exitCode)} before listening`);
		}

		first = lines()[0];
		if (first === undefined) {
			await sleep(50);
		}
	}

	if (first === undefined) {
		child.kill('SIGKILL');
		throw new Error(`${command.join(' ')} did not start within 30 s`);
	}

	const {url} = JSON.parse(first) as {url: string};
	return {
		child,
		url,
		lines,
		async stop(signal: NodeJS.Signals = 'SIGTERM') {
			if (child.exitCode === null && child.signalCode === null) {
				child.kill(signal);
			}

			return closed;
		},
	};
}

/**
 * A child server's script: node:http on a free loopback port (its first stdout line is JSON with
 * `url`), handing each whole body and its response to `onBody`, which `code` defines.
 */
function serverScript(code: string): string {
	return `
const http = require('node:http');
${code}
const server = http.createServer((request, response) => {
	const chunks = [];
	request.on('data', chunk => chunks.push(chunk));
	request.on('end', () => onBody(Buffer.concat(chunks), response));
});
server.keepAliveTimeout = 5000;
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({url: 'http://127.0.0.1:' + server.address().port})));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;
}

/** Bare node:http: reads the body, answers 200. */
const bareServerScript = serverScript(`
function onBody(body, response) {
	response.writeHead(200, {'content-type': 'application/json', 'content-length': '16'});
	response.end('{"success":true}');
}
`);

/** The flush floor: bare node:http plus a group-committed, flushed append of each body (argv[1]: the file). */
const flushedAppendScript = serverScript(`
const fs = require('node:fs');
const size = 64 * 1024 * 1024;
const fd = fs.openSync(process.argv[1], 'w+');
const zeros = Buffer.alloc(1024 * 1024);
// Preallocated and flushed once, so each later flush writes data only (no size change to record).
for (let written = 0; written < size; written += zeros.length) fs.writeSync(fd, zeros);
fs.fsyncSync(fd);
let position = 0;
let pending = [];
let flushing = false;
function flush() {
	const batch = pending;
	pending = [];
	if (batch.length === 0) {
		flushing = false;
		return;
	}
	const bodies = batch.map(item => item.body);
	const length = bodies.reduce((sum, body) => sum + body.length, 0);
	if (position + length > size) position = 0;
	fs.writevSync(fd, bodies, position);
	position += length;
	fs.fdatasync(fd, error => {
		const answer = error ? '{"success":false}' : '{"success":true}';
		for (const {response} of batch) {
			response.writeHead(error ? 503 : 200, {'content-type': 'application/json', 'content-length': String(answer.length)});
			response.end(answer);
		}
		flush();
	});
}
function onBody(body, response) {
	pending.push({body, response});
	if (!flushing) {
		flushing = true;
		setImmediate(flush);
	}
}
`);

function serveEnv(platform: LocalPlatform, configDir: string): NodeJS.ProcessEnv {
	const env: NodeJS.ProcessEnv = {};
	for (const [name, value] of Object.entries(process.env)) {
		if (!name.startsWith('PLATFORM_') && name !== 'NODE_OPTIONS') {
			env[name] = value;
		}
	}

	return {
		...env,
		CI: '1',
		NO_COLOR: '1',
		PLATFORM_TUI_CONFIG_DIR: configDir,
		// A fresh journal per serve: the durable path (commit before the 200) is what is measured.
		PLATFORM_TUI_DATA_DIR: mkdtempSync(path.join(configDir, 'data-')),
		PLATFORM_BASE_URL: platform.baseUrl,
		PLATFORM_API_KEY: platform.apiKey,
		PLATFORM_APP_ID: platform.appId,
		PLATFORM_ENDPOINT_SECRET: secret,
	};
}

const fmt = (value: number, digits = 1) => value.toFixed(digits);

/** CPU time (user + system) a process has used, ms; undefined where /proc is not available. */
function cpuMs(pid: number | undefined): number | undefined {
	if (pid === undefined) {
		return undefined;
	}

	try {
		const fields = (readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1] ?? '').split(' ');
		const ticks = Number(fields[11]) + Number(fields[12]);
		return ticks * 10; // USER_HZ is 100 on Linux.
	} catch {
		return undefined;
	}
}

const median = (values: number[]) => {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? defined(sorted[middle], 'a value') : (defined(sorted[middle - 1], 'a value') + defined(sorted[middle], 'a value')) / 2;
};

type Round = LoadResult & {cpuUsPerRequest?: number};

async function measure(target: Child, count: number): Promise<Round> {
	const items = deliveries(count);
	const before = cpuMs(target.child.pid);
	const result = await load(target.url, items);
	const after = cpuMs(target.child.pid);
	return {...result, ...(before === undefined || after === undefined ? {} : {cpuUsPerRequest: ((after - before) * 1000) / count})};
}

const contenders = ['bare', 'floor', 'serve'] as const;
type Contender = (typeof contenders)[number];

/** The rounds' medians (latency and CPU each the median of its own rounds). */
function summary(rounds: Round[]): Round {
	const cpu = rounds.map(round => round.cpuUsPerRequest).filter((value): value is number => value !== undefined);
	return {
		durationMs: median(rounds.map(round => round.durationMs)),
		perSecond: median(rounds.map(round => round.perSecond)),
		p50: median(rounds.map(round => round.p50)),
		p99: median(rounds.map(round => round.p99)),
		non200: rounds.reduce((sum, round) => sum + round.non200, 0),
		...(cpu.length > 0 ? {cpuUsPerRequest: median(cpu)} : {}),
	};
}

/** The median over rounds of one contender's figure divided by bare's in the same round. */
function ratioOf(rounds: Array<Record<Contender, Round>>, name: Contender, figure: (round: Round) => number | undefined): number | undefined {
	const ratios: number[] = [];
	for (const round of rounds) {
		const value = figure(round[name]);
		const bare = figure(round.bare);
		if (value !== undefined && bare !== undefined && bare > 0) {
			ratios.push(value / bare);
		}
	}

	return ratios.length > 0 ? median(ratios) : undefined;
}

async function throughput(platform: LocalPlatform, configDir: string): Promise<void> {
	const rounds = 4;
	console.log(`Verified-webhook throughput: ${rounds} rounds of bare, flush floor and serve side by side (order rotating), ${requestCount} signed user-message.created deliveries each, ${connections} connections, loopback`);
	const children: Record<Contender, Child> = {
		bare: await startChild(['-e', bareServerScript], process.env, path.join(configDir, 'bare.log')),
		floor: await startChild(['-e', flushedAppendScript, path.join(configDir, 'flushed-append.bin')], process.env, path.join(configDir, 'floor.log')),
		serve: await startChild([cliPath, 'serve', '--port', '0', '--json'], serveEnv(platform, configDir), path.join(configDir, 'serve.log')),
	};
	const show = (name: string, round: Round) => `${name.padEnd(5)} ${fmt(round.perSecond, 0).padStart(6)} req/s  p50 ${fmt(round.p50)} ms  p99 ${fmt(round.p99)} ms${round.cpuUsPerRequest === undefined ? '' : `  ${fmt(round.cpuUsPerRequest)} µs CPU/request`}${round.non200 > 0 ? `  (${round.non200} non-200!)` : ''}`;
	try {
		for (const name of contenders) {
			await load(children[name].url, deliveries(warmupCount));
		}

		const results: Array<Record<Contender, Round>> = [];
		for (let index = 0; index < rounds; index++) {
			// Rotate which goes first, so a slow spell of the machine does not always hit the same one.
			const order = contenders.map((_, offset) => defined(contenders[(index + offset) % contenders.length], 'a contender'));
			const round: Partial<Record<Contender, Round>> = {};
			for (const name of order) {
				round[name] = await measure(children[name], requestCount);
			}

			const complete = {bare: defined(round.bare, 'the bare round'), floor: defined(round.floor, 'the floor round'), serve: defined(round.serve, 'the serve round')};
			results.push(complete);
			console.log(`  round ${index + 1}: ${show('bare', complete.bare)}`);
			console.log(`           ${show('floor', complete.floor)}   ratio ${fmt(complete.floor.perSecond / complete.bare.perSecond, 2)}`);
			console.log(`           ${show('serve', complete.serve)}   ratio ${fmt(complete.serve.perSecond / complete.bare.perSecond, 2)}`);
		}

		await children.serve.stop('SIGTERM');
		const stopped = children.serve.lines().map(line => JSON.parse(line) as {type?: string; counters?: {verified: number; rejected: number; duplicates: number}}).find(line => line.type === 'stopped');
		const expected = warmupCount + (rounds * requestCount);
		const of = (name: Contender) => summary(results.map(round => round[name]));
		console.log('  medians:');
		console.log(`    bare node:http (reads the body, answers 200):  ${show('', of('bare')).trim()}`);
		console.log(`    flush floor (bare + flushed group-commit append of the body, nothing else):  ${show('', of('floor')).trim()}`);
		console.log(`    platform-tui serve (verify, journal commit before the 200, log line):  ${show('', of('serve')).trim()}`);
		console.log(`  serve verified ${stopped?.counters?.verified ?? '?'} of ${expected} deliveries, rejected ${stopped?.counters?.rejected ?? '?'}, duplicates ${stopped?.counters?.duplicates ?? '?'}`);
		const perSecond = (round: Round) => round.perSecond;
		const cpu = (round: Round) => round.cpuUsPerRequest;
		const floorRate = ratioOf(results, 'floor', perSecond);
		const floorCpu = ratioOf(results, 'floor', cpu);
		console.log(`  flush floor/bare on this machine: throughput ${floorRate === undefined ? '?' : fmt(floorRate, 2)}×, CPU per request ${floorCpu === undefined ? '?' : fmt(floorCpu, 2)}× (what flushing before the 200 alone costs; no receiver that persists first does better here)`);
		const rate = defined(ratioOf(results, 'serve', perSecond), 'the throughput ratio');
		console.log(`  RESULT throughput ratio serve/bare (median of ${rounds} side-by-side rounds): ${fmt(rate, 2)} (goal ≥ 0.85) ${rate >= 0.85 ? 'MET' : 'NOT MET'}`);
		const cpuRatio = ratioOf(results, 'serve', cpu);
		if (cpuRatio !== undefined) {
			console.log(`  RESULT server CPU per request serve/bare: ${fmt(cpuRatio, 2)}× (goal ≤ 1.5×) ${cpuRatio <= 1.5 ? 'MET' : 'NOT MET'}`);
		}

		console.log(`  RESULT p99 ack latency with the journal on: ${fmt(of('serve').p99)} ms (bare ${fmt(of('bare').p99)} ms, flush floor ${fmt(of('floor').p99)} ms)`);
	} finally {
		await children.serve.stop('SIGKILL');
		await children.floor.stop('SIGTERM');
		await children.bare.stop('SIGTERM');
	}
}

/**
 * The admin listener's cost: serve with --admin-port and /metrics scraped once a second against the
 * same serve without it, CPU per request side by side (rounds rotate which goes first).
 */
async function adminOverhead(platform: LocalPlatform, configDir: string): Promise<void> {
	const rounds = 4;
	console.log(`Admin listener overhead: ${rounds} rounds of serve without and with --admin-port (/metrics scraped once a second), ${requestCount} deliveries each`);
	const off = await startChild([cliPath, 'serve', '--port', '0', '--json'], serveEnv(platform, configDir), path.join(configDir, 'admin-off.log'));
	const on = await startChild([cliPath, 'serve', '--port', '0', '--json', '--admin-port', '0'], serveEnv(platform, configDir), path.join(configDir, 'admin-on.log'));
	const adminUrl = (JSON.parse(defined(on.lines()[0], 'the listening line')) as {adminUrl?: string}).adminUrl;
	let scrapes = 0;
	const scraper = setInterval(() => {
		void fetch(`${defined(adminUrl, 'the admin url')}/metrics`).then(async response => {
			await response.text();
			scrapes++;
		}, () => undefined);
	}, 1000);
	try {
		await load(off.url, deliveries(warmupCount));
		await load(on.url, deliveries(warmupCount));
		const offRounds: Round[] = [];
		const onRounds: Round[] = [];
		for (let index = 0; index < rounds; index++) {
			const order = index % 2 === 0 ? [off, on] : [on, off];
			for (const target of order) {
				(target === off ? offRounds : onRounds).push(await measure(target, requestCount));
			}
		}

		const cpuOff = summary(offRounds).cpuUsPerRequest;
		const cpuOn = summary(onRounds).cpuUsPerRequest;
		console.log(`  admin off: ${fmt(summary(offRounds).perSecond, 0)} req/s, ${cpuOff === undefined ? '?' : fmt(cpuOff)} µs CPU/request`);
		console.log(`  admin on:  ${fmt(summary(onRounds).perSecond, 0)} req/s, ${cpuOn === undefined ? '?' : fmt(cpuOn)} µs CPU/request (${scrapes} scrapes of /metrics)`);
		if (cpuOff !== undefined && cpuOn !== undefined) {
			const ratio = cpuOn / cpuOff;
			console.log(`  RESULT CPU per request admin on/off: ${fmt(ratio, 3)}× (goal within 5 %) ${Math.abs(ratio - 1) <= 0.05 ? 'MET' : 'NOT MET'}`);
		}
	} finally {
		clearInterval(scraper);
		await off.stop('SIGTERM');
		await on.stop('SIGTERM');
	}
}

/** An OpenAI-compatible model that answers after `delayMs`. */
async function slowModel(): Promise<{url: string; setSlow(ms: number): void; close(): Promise<void>}> {
	let delayMs = 0;
	let content = 'A quick answer.';
	const server: Server = createServer((request, response) => {
		request.resume();
		request.on('end', () => {
			setTimeout(() => {
				response.writeHead(200, {'content-type': 'application/json'});
				response.end(JSON.stringify({choices: [{index: 0, message: {role: 'assistant', content}, finish_reason: 'stop'}]}));
			}, delayMs);
		});
	});
	await new Promise<void>(resolve => {
		server.listen(0, '127.0.0.1', resolve);
	});
	return {
		url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
		setSlow(ms) {
			delayMs = ms;
			content = 'A slow answer.';
		},
		async close() {
			server.closeAllConnections();
			await new Promise(resolve => {
				server.close(resolve);
			});
		},
	};
}

async function ackLatency(configDir: string): Promise<void> {
	const events = 16;
	const completionMs = 2000;
	console.log(`\nAck latency of chosen-module events while each completion takes ${completionMs / 1000} s (${events} events, serve --concurrency 8)`);
	const model = await slowModel();
	const platform = await startLocalPlatform({llmUrl: model.url, ingestionStepMs: 10, assistantStepMs: 1});
	const client = new PlatformClient({baseUrl: platform.baseUrl, apiKey: platform.apiKey, appId: platform.appId, userId: platform.userId, companyId: platform.companyId});
	const serve = await startChild([cliPath, 'serve', '--port', '0', '--json', '--concurrency', '8'], serveEnv(platform, configDir), path.join(configDir, 'serve-chosen.log'));
	try {
		// Real assistant messages to answer (made while no module is registered, with a quick model).
		const targets: Array<{chatId: string; messageId: string}> = [];
		for (let index = 0; index < events; index++) {
			const chat = await client.createChat({title: `Bench ${index}`, assistantId: platform.assistantId});
			await client.createSpaceMessage({assistantId: platform.assistantId, chatId: chat.id, text: 'Hello?'});
			const history = await client.getChatMessages(chat.id);
			targets.push({chatId: chat.id, messageId: defined(defined(history.messages.find(message => message.role === 'ASSISTANT'), 'the assistant message').id, 'its id')});
		}

		// Wait until the built-in answers are written, so they do not count as ours.
		for (const target of targets) {
			for (let attempt = 0; attempt < 200 && !platform.message(target.messageId)?.stoppedStreamingAt; attempt++) {
				await sleep(10);
			}
		}

		model.setSlow(completionMs);
		const pool = new Pool(new URL(serve.url).origin, {connections: 1});
		const acks: number[] = [];
		const ackedAt = new Map<string, number>();
		for (const target of targets) {
			const event = buildTestEvent('external-module-chosen', {
				chatId: target.chatId,
				assistantMessageId: target.messageId,
				text: 'What does the lighthouse keeper write?',
				userId: platform.userId,
				companyId: platform.companyId,
				assistantId: platform.assistantId,
			});
			const delivery = signDelivery(event, secret);
			const sent = performance.now();
			const response = await pool.request({path: '/webhook', method: 'POST', headers: delivery.headers, body: delivery.body});
			await response.body.text();
			const acked = performance.now();
			acks.push(acked - sent);
			ackedAt.set(target.messageId, acked);
			if (response.statusCode !== 200) {
				console.log(`  unexpected status ${response.statusCode}`);
			}
		}

		await pool.close();
		const answered: number[] = [];
		const deadline = Date.now() + 60_000;
		for (const target of targets) {
			while (platform.message(target.messageId)?.text !== 'A slow answer.' && Date.now() < deadline) {
				await sleep(10);
			}

			answered.push(performance.now() - defined(ackedAt.get(target.messageId), 'the ack time'));
		}

		const unanswered = targets.filter(target => platform.message(target.messageId)?.text !== 'A slow answer.').length;
		acks.sort((a, b) => a - b);
		answered.sort((a, b) => a - b);
		console.log(`  ack (time to 200): p50 ${fmt(defined(acks[Math.floor(acks.length / 2)], 'an ack'))} ms  p99 ${fmt(percentile(acks, 0.99))} ms  max ${fmt(defined(acks.at(-1), 'an ack'))} ms`);
		console.log(`  answer written after the ack: min ${fmt(defined(answered[0], 'an answer') / 1000, 2)} s  max ${fmt(defined(answered.at(-1), 'an answer') / 1000, 2)} s${unanswered > 0 ? `  (${unanswered} never answered!)` : ''}`);
		console.log(`  RESULT max ack / completion time: ${fmt(defined(acks.at(-1), 'an ack') / completionMs, 4)} (the acknowledgement does not wait for the 2 s completion)`);
	} finally {
		await serve.stop('SIGTERM');
		await client.close();
		await platform.close();
		await model.close();
	}
}

const configDir = mkdtempSync(path.join(tmpdir(), 'platform-tui-bench-receiver-'));
try {
	const platform = await startLocalPlatform();
	try {
		await throughput(platform, configDir);
		await adminOverhead(platform, configDir);
	} finally {
		await platform.close();
	}

	await ackLatency(configDir);
} finally {
	rmSync(configDir, {recursive: true, force: true});
}
