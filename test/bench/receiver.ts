/**
 * Receiver benchmark (`npm run bench -- receiver`, or `node --import tsx test/bench/receiver.ts`
 * after `npm run build`). The harness is in receiver-harness.ts; `receiver-profile.ts` runs one
 * serve under a profiler with the same load.
 *
 * 1. Verified webhooks, three servers side by side, each in its own process, the same load
 *    generator for all (an undici Pool, 32 connections, pre-signed
 *    `platform.chat.user-message.created` deliveries with fresh ids, over loopback):
 *    - bare node:http that reads the body and answers 200;
 *    - the flush floor: bare node:http that appends each body to a preallocated file and answers
 *      once an `fdatasync` covering it returns (group commit), nothing else. It is the physical
 *      limit of "persist, then 200" on this disk at this concurrency, and `serve` is judged by its
 *      distance to it;
 *    - the built `platform-tui serve --json` with its journal on (every 200 waits for the event's
 *      flushed write-ahead log entry; LMDB commits many at once), its NDJSON log to a file.
 *    After 10 000 warm-up deliveries each, eight rounds run all three (the order rotating); every
 *    ratio printed is the median of the rounds' own ratios. Goals against the floor: CPU per request ≤ 1.5×, throughput ≥ 0.85×
 *    (the earlier goals ≤ 2.0× and ≥ 0.6× printed beside them), p99 ≤ 2×. CPU time comes from /proc (the server process alone, every thread).
 * 2. Hidden classes V8 creates per delivery in a warm serve (`--log-maps`), goal 0.
 * 3. Memory: RssAnon after 100 000 deliveries within 30 MiB of RssAnon after 10 000; RssFile beside.
 * 4. How close any store could come (receiver-bound.ts): a variant of serve built with its journal
 *    swapped out, storing nothing and with the floor's append in its place, six rounds beside the
 *    floor and serve; no goal.
 * 5. Ack latency of chosen-module events while each completion takes 2 s (receiver-ack.ts).
 * Set BENCH_RECEIVER_REQUESTS to change the deliveries per round (default 10 000).
 */
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {startLocalPlatform, type LocalPlatform} from '../../source/local-platform/index.js';
import {defined} from '../support/defined.js';
import {ackLatency} from './receiver-ack.js';
import {storeBound} from './receiver-bound.js';
import {ratioOf, ratioText, rotatingRounds, warmupCount} from './receiver-rounds.js';
import {hiddenClassesPerDelivery, memoryGrowth, showMemory} from './receiver-footprint.js';
import {bareServerScript, cliPath, connections, cpuMs, deliveries, flushedAppendScript, fmt, load, median, serveEnv, startChild, startServe, type Child, type LoadResult} from './receiver-harness.js';

const requestCount = Number(process.env.BENCH_RECEIVER_REQUESTS ?? 10_000);
// Each server is warmed first (receiver-rounds.ts says why); the machine's slow spells move single
// rounds by a third, so eight rounds give the medians.
const rounds = 8;

type Round = LoadResult & {cpuUsPerRequest?: number};

async function measure(target: Child, count: number): Promise<Round> {
	const items = deliveries(count);
	const before = cpuMs(target.pid);
	const result = await load(target.url, items);
	const after = cpuMs(target.pid);
	return {...result, ...(before === undefined || after === undefined ? {} : {cpuUsPerRequest: ((after - before) * 1000) / count})};
}

const contenders = ['bare', 'floor', 'serve'] as const;
type Contender = (typeof contenders)[number];

/** The rounds' medians (latency and CPU each the median of its own rounds). */
function summary(results: Round[]): Round {
	const cpu = results.map(round => round.cpuUsPerRequest).filter((value): value is number => value !== undefined);
	return {
		durationMs: median(results.map(round => round.durationMs)),
		perSecond: median(results.map(round => round.perSecond)),
		p50: median(results.map(round => round.p50)),
		p99: median(results.map(round => round.p99)),
		non200: results.reduce((sum, round) => sum + round.non200, 0),
		...(cpu.length > 0 ? {cpuUsPerRequest: median(cpu)} : {}),
	};
}

const show = (name: string, round: Round) => `${name.padEnd(5)} ${fmt(round.perSecond, 0).padStart(6)} req/s  p50 ${fmt(round.p50)} ms  p99 ${fmt(round.p99)} ms${round.cpuUsPerRequest === undefined ? '' : `  ${fmt(round.cpuUsPerRequest)} µs CPU/request`}${round.non200 > 0 ? `  (${round.non200} non-200!)` : ''}`;

const verdict = (met: boolean) => (met ? 'MET' : 'NOT MET');

function printResults(results: Array<Record<Contender, Round>>, stopped: string): void {
	const of = (name: Contender) => summary(results.map(round => round[name]));
	const floor = of('floor');
	const serve = of('serve');
	console.log('  medians:');
	console.log(`    bare node:http (reads the body, answers 200):  ${show('', of('bare')).trim()}`);
	console.log(`    flush floor (bare + flushed group-commit append of the body, nothing else):  ${show('', floor).trim()}`);
	console.log(`    platform-tui serve (verify, journal's write-ahead log flushed before the 200, log line):  ${show('', serve).trim()}`);
	console.log(`  ${stopped}`);
	const perSecond = (round: Round) => round.perSecond;
	const cpu = (round: Round) => round.cpuUsPerRequest;
	const p99 = (round: Round) => round.p99;
	console.log(`  flush floor/bare: throughput ${ratioText(results, 'floor', 'bare', perSecond)}×, CPU per request ${ratioText(results, 'floor', 'bare', cpu)}×; serve/bare: throughput ${ratioText(results, 'serve', 'bare', perSecond)}×, CPU per request ${ratioText(results, 'serve', 'bare', cpu)}×`);
	const cpuRatio = ratioOf(results, 'serve', 'floor', cpu);
	const cpuFigures = `serve ${serve.cpuUsPerRequest === undefined ? '?' : fmt(serve.cpuUsPerRequest)} µs, floor ${floor.cpuUsPerRequest === undefined ? '?' : fmt(floor.cpuUsPerRequest)} µs`;
	console.log(`  RESULT CPU per request serve/floor (median of ${results.length} side-by-side rounds): ${ratioText(results, 'serve', 'floor', cpu)}× (${cpuFigures}) (goal ≤ 1.5×) ${cpuRatio === undefined ? 'NOT MEASURED (no /proc)' : `${verdict(cpuRatio <= 1.5)} (the earlier goal ≤ 2.0×: ${verdict(cpuRatio <= 2)})`}`);
	const rate = defined(ratioOf(results, 'serve', 'floor', perSecond), 'the throughput ratio');
	console.log(`  RESULT throughput serve/floor: ${fmt(rate, 2)}× (serve ${fmt(serve.perSecond, 0)} req/s, floor ${fmt(floor.perSecond, 0)} req/s) (goal ≥ 0.85×) ${verdict(rate >= 0.85)} (the earlier goal ≥ 0.6×: ${verdict(rate >= 0.6)})`);
	const latency = defined(ratioOf(results, 'serve', 'floor', p99), 'the p99 ratio');
	console.log(`  RESULT p99 ack latency serve/floor: ${fmt(latency, 2)}× (serve p99 ${fmt(serve.p99)} ms, floor p99 ${fmt(floor.p99)} ms) (goal ≤ 2×) ${verdict(latency <= 2)}`);
}

async function throughput(platform: LocalPlatform, configDir: string): Promise<void> {
	console.log(`Verified-webhook throughput: ${rounds} rounds of bare, flush floor and serve side by side (order rotating), ${requestCount} signed user-message.created deliveries each, ${connections} connections, loopback`);
	const children: Record<Contender, Child> = {
		bare: await startChild(['-e', bareServerScript], process.env, path.join(configDir, 'bare.log')),
		floor: await startChild(['-e', flushedAppendScript, path.join(configDir, 'flushed-append.bin')], process.env, path.join(configDir, 'floor.log')),
		serve: await startServe(platform, configDir, path.join(configDir, 'serve.log')),
	};
	try {
		const results = await rotatingRounds(children, contenders, rounds, async target => measure(target, requestCount), ({bare, floor, serve}, index) => {
			const cpu = serve.cpuUsPerRequest !== undefined && floor.cpuUsPerRequest !== undefined ? `, CPU ${fmt(serve.cpuUsPerRequest / floor.cpuUsPerRequest, 2)}×` : '';
			console.log(`  round ${index + 1}: ${show('bare', bare)}`);
			console.log(`           ${show('floor', floor)}`);
			console.log(`           ${show('serve', serve)}   serve/floor: throughput ${fmt(serve.perSecond / floor.perSecond, 2)}×${cpu}, p99 ${fmt(serve.p99 / floor.p99, 2)}×`);
		});

		await children.serve.stop('SIGTERM');
		const stopped = children.serve.lines().map(line => JSON.parse(line) as {type?: string; counters?: {verified: number; rejected: number; duplicates: number}}).find(line => line.type === 'stopped');
		const expected = warmupCount + (rounds * requestCount);
		printResults(results, `serve verified ${stopped?.counters?.verified ?? '?'} of ${expected} deliveries, rejected ${stopped?.counters?.rejected ?? '?'}, duplicates ${stopped?.counters?.duplicates ?? '?'}`);
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
	const rounds = 8;
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
		// As the floor's ratios: the median of each round's own ratio (the two ran back to back).
		const ratio = ratioOf(offRounds.map((off, index) => ({off, on: onRounds[index] ?? off})), 'on', 'off', round => round.cpuUsPerRequest);
		if (ratio !== undefined) {
			console.log(`  RESULT CPU per request admin on/off (median of ${rounds} rounds' own ratios): ${fmt(ratio, 3)}× (goal within 5 %) ${Math.abs(ratio - 1) <= 0.05 ? 'MET' : 'NOT MET'}`);
		}
	} finally {
		clearInterval(scraper);
		await off.stop('SIGTERM');
		await on.stop('SIGTERM');
	}
}

const configDir = mkdtempSync(path.join(tmpdir(), 'platform-tui-bench-receiver-'));
try {
	const platform = await startLocalPlatform();
	try {
		await throughput(platform, configDir);
		await adminOverhead(platform, configDir);
		console.log('\nHidden classes (V8 maps) a warm serve creates per delivery (--log-maps, 3000 deliveries against 1000)');
		const maps = await hiddenClassesPerDelivery(platform, configDir);
		console.log(`  RESULT hidden classes created per delivery: ${fmt(maps, 2)} (goal 0: one shape per object on the hot path) ${verdict(maps < 0.05)}`);
		console.log('\nMemory of one serve: 10 000 deliveries, then 45 000 and 45 000 more (/proc/<pid>/status)');
		for (const line of showMemory(await memoryGrowth(platform, configDir))) {
			console.log(line);
		}

		// After the goals' sections, so its build and the writeback of its files colour none of them.
		await storeBound(platform, configDir, 6, requestCount);
	} finally {
		await platform.close();
	}

	await ackLatency(configDir);
} finally {
	rmSync(configDir, {recursive: true, force: true});
}
