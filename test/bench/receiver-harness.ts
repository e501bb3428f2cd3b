/**
 * The receiver benchmarks' harness, shared by `receiver.ts` (the side-by-side figures) and
 * `receiver-profile.ts` (one server under a profiler): pre-signed deliveries, the undici load
 * generator, child servers (bare node:http, the flush floor, the built `serve`), and what /proc
 * says about a child (CPU time, per thread; anonymous and file-backed RSS).
 */
import {spawn, type ChildProcess} from 'node:child_process';
import {closeSync, mkdtempSync, openSync, readdirSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {setTimeout as sleep} from 'node:timers/promises';
import {fileURLToPath} from 'node:url';
import {Pool} from 'undici';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {buildTestEvent, signDelivery} from '../../source/receiver/intake/test-event.js';
import {defined} from '../support/defined.js';

const here = fileURLToPath(import.meta.url);
export const root = path.resolve(path.dirname(here), '../..');
export const cliPath = path.join(root, 'dist/cli.js');
export const connections = 32;
export const secret = 'whsec_bench_0123456789abcdef';

export type Delivery = {body: string; headers: Record<string, string>};

export type LoadResult = {durationMs: number; perSecond: number; p50: number; p99: number; non200: number};

export function percentile(sorted: number[], fraction: number): number {
	if (sorted.length === 0) {
		return Number.NaN;
	}

	return defined(sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))], 'a latency');
}

export const median = (values: number[]) => {
	const sorted = [...values].sort((a, b) => a - b);
	const middle = Math.floor(sorted.length / 2);
	return sorted.length % 2 === 1 ? defined(sorted[middle], 'a value') : (defined(sorted[middle - 1], 'a value') + defined(sorted[middle], 'a value')) / 2;
};

/** Fresh, signed user-message deliveries (signed before the clock starts). */
export function deliveries(count: number): Delivery[] {
	const out: Delivery[] = [];
	for (let index = 0; index < count; index++) {
		const event = buildTestEvent('user-message', {text: `Benchmark message ${index}: what does the harbour lighthouse keeper write?`, chatId: 'chat_bench', userId: 'user_bench', companyId: 'company_bench'});
		out.push(signDelivery(event, secret));
	}

	return out;
}

/** Sends every delivery with `connections` in flight; returns throughput and latency. */
export async function load(url: string, items: Delivery[]): Promise<LoadResult> {
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

/** Sends `count` fresh deliveries in slices (signing a slice at a time keeps this process small). */
export async function loadMany(url: string, count: number, slice = 10_000): Promise<number> {
	let non200 = 0;
	for (let sent = 0; sent < count; sent += slice) {
		non200 += (await load(url, deliveries(Math.min(slice, count - sent)))).non200;
	}

	return non200;
}

export type Child = {child: ChildProcess; pid: number; url: string; lines(): string[]; stop(signal?: NodeJS.Signals): Promise<number | null>};

/**
 * Starts a child whose first stdout line is JSON with `url`. Its stdout goes to a file, as a
 * deployed receiver's log would, so this process (the load generator) never spends time reading
 * the child's log.
 */
export async function startChild(command: string[], env: NodeJS.ProcessEnv, logFile: string): Promise<Child> {
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
		pid: defined(child.pid, 'the child pid'),
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
export const bareServerScript = serverScript(`
function onBody(body, response) {
	response.writeHead(200, {'content-type': 'application/json', 'content-length': '16'});
	response.end('{"success":true}');
}
`);

/** The flush floor: bare node:http plus a group-committed, flushed append of each body (argv[1]: the file). */
export const flushedAppendScript = serverScript(`
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

/** The environment of a `serve` child: a fresh journal (the durable path is what is measured), NDJSON, no colour. */
export function serveEnv(platform: LocalPlatform, configDir: string): NodeJS.ProcessEnv {
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
		PLATFORM_TUI_DATA_DIR: mkdtempSync(path.join(configDir, 'data-')),
		PLATFORM_BASE_URL: platform.baseUrl,
		PLATFORM_API_KEY: platform.apiKey,
		PLATFORM_APP_ID: platform.appId,
		PLATFORM_ENDPOINT_SECRET: secret,
	};
}

/** Starts the built `serve --json` (node flags first, e.g. `--cpu-prof`; another build's cli.js as `cli`), its log in `logFile`. */
export async function startServe(platform: LocalPlatform, configDir: string, logFile: string, nodeFlags: string[] = [], extra: string[] = [], cli = cliPath): Promise<Child> {
	return startChild([...nodeFlags, cli, 'serve', '--port', '0', '--json', ...extra], serveEnv(platform, configDir), logFile);
}

/** User + system CPU time of a /proc stat line, ms (USER_HZ is 100 on Linux): counted in 10 ms ticks. */
function statCpuMs(stat: string): number {
	const fields = (stat.slice(stat.lastIndexOf(') ') + 2)).split(' ');
	return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * One thread's CPU time, ms, and its name. The time is the scheduler's own count, to the
 * nanosecond (the first field of /proc/<pid>/task/<tid>/schedstat); `stat` counts 10 ms ticks,
 * which moved a round of 10 000 deliveries (200 to 450 ms of CPU) by 2 to 5 %, the margin of the
 * goals themselves. `stat`'s ticks where the kernel keeps no schedstat.
 */
function threadCpu(pid: number, task: string): {name: string; ms: number} | undefined {
	try {
		const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
		const name = task === String(pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
		let ms = statCpuMs(stat);
		try {
			ms = Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
		} catch {
			// No schedstat here: the ticks.
		}

		return {name, ms};
	} catch {
		// The thread ended meanwhile.
		return undefined;
	}
}

/** CPU time per thread name (main, libuv workers, V8 workers, lmdb's writer …), ms, summed over threads of one name. */
export function threadCpuMs(pid: number): Map<string, number> {
	const byName = new Map<string, number>();
	for (const task of readdirSync(`/proc/${pid}/task`)) {
		const thread = threadCpu(pid, task);
		if (thread) {
			byName.set(thread.name, (byName.get(thread.name) ?? 0) + thread.ms);
		}
	}

	return byName;
}

/** CPU time (user + system) a process has used, ms, summed over its threads; undefined where /proc is not available. */
export function cpuMs(pid: number | undefined): number | undefined {
	if (pid === undefined) {
		return undefined;
	}

	try {
		let ms = 0;
		for (const threadMs of threadCpuMs(pid).values()) {
			ms += threadMs;
		}

		return ms;
	} catch {
		return undefined;
	}
}

/** Anonymous and file-backed resident memory of a process, MiB (`RssAnon`, `RssFile` in /proc/<pid>/status). */
export function rssMiB(pid: number): {anon: number; file: number} {
	const status = readFileSync(`/proc/${pid}/status`, 'utf8');
	const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
	return {anon: kib('RssAnon') / 1024, file: kib('RssFile') / 1024};
}

export const fmt = (value: number, digits = 1) => value.toFixed(digits);
