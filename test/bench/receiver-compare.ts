/**
 * Two builds of `serve` (journal on) side by side with the flush floor, for before/after figures
 * of a change to the receiver's hot path on a machine other work shares:
 * `node --import tsx test/bench/receiver-compare.ts <other build's dist/cli.js> [rounds] [requests] [this build's cli.js]`
 * ("this" is this checkout's `dist/cli.js` unless a fourth argument names another).
 *
 * Builds an older commit with e.g. `git archive <commit> source tsconfig.json package.json
 * esbuild.config.mjs | tar -x -C <dir>`, `node_modules` linked in, then `node esbuild.config.mjs`
 * in `<dir>` (its `dist/cli.js` is the other build). Each round sends the
 * same number of fresh deliveries to the floor, this build and the other (the order rotating);
 * each printed ratio is the median of the rounds' own ratios, and CPU time is the server
 * process's own (every thread, from /proc), split into its main thread and the rest.
 */
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {startLocalPlatform} from '../../source/local-platform/index.js';
import {defined} from '../support/defined.js';
import {cliPath, deliveries, flushedAppendScript, fmt, load, median, startChild, startServe, threadCpuMs, type Child} from './receiver-harness.js';

const other = defined(process.argv[2], 'the other build\'s cli.js (argument 1)');
const rounds = Number(process.argv[3] ?? 6);
const requests = Number(process.argv[4] ?? 10_000);
const thisCli = process.argv[5] ?? cliPath;
const names = ['floor', 'this', 'other'] as const;
type Name = (typeof names)[number];
type Figures = {perSecond: number; p99: number; cpuUs: number; mainUs: number};

function cpuSplit(pid: number): {all: number; main: number} {
	let all = 0;
	const threads = threadCpuMs(pid);
	for (const ms of threads.values()) {
		all += ms;
	}

	return {all, main: threads.get('main') ?? 0};
}

async function measure(target: Child): Promise<Figures> {
	const items = deliveries(requests);
	const before = cpuSplit(target.pid);
	const result = await load(target.url, items);
	const after = cpuSplit(target.pid);
	if (result.non200 > 0) {
		throw new Error(`${result.non200} deliveries were not answered 200`);
	}

	return {perSecond: result.perSecond, p99: result.p99, cpuUs: ((after.all - before.all) * 1000) / requests, mainUs: ((after.main - before.main) * 1000) / requests};
}

const configDir = mkdtempSync(path.join(tmpdir(), 'platform-tui-compare-'));
const platform = await startLocalPlatform();
try {
	const children: Record<Name, Child> = {
		floor: await startChild(['-e', flushedAppendScript, path.join(configDir, 'flushed-append.bin')], process.env, path.join(configDir, 'floor.log')),
		this: await startServe(platform, configDir, path.join(configDir, 'this.log'), [], [], thisCli),
		other: await startServe(platform, configDir, path.join(configDir, 'other.log'), [], [], other),
	};
	try {
		for (const name of names) {
			await load(children[name].url, deliveries(10_000));
		}

		const results: Array<Record<Name, Figures>> = [];
		for (let index = 0; index < rounds; index++) {
			const round: Partial<Record<Name, Figures>> = {};
			for (let offset = 0; offset < names.length; offset++) {
				const name = defined(names[(index + offset) % names.length], 'a name');
				round[name] = await measure(children[name]);
			}

			const complete = {floor: defined(round.floor, 'floor'), this: defined(round.this, 'this'), other: defined(round.other, 'other')};
			results.push(complete);
			console.log(`round ${index + 1}: ${names.map(name => `${name} ${fmt(complete[name].perSecond, 0)} req/s ${fmt(complete[name].cpuUs)} µs (main ${fmt(complete[name].mainUs)}) p99 ${fmt(complete[name].p99)} ms`).join(' | ')}`);
		}

		const ratio = (name: Name, base: Name, figure: (value: Figures) => number) => fmt(median(results.map(round => figure(round[name]) / figure(round[base]))), 2);
		for (const name of ['this', 'other'] as const) {
			console.log(`${name} / floor: CPU ${ratio(name, 'floor', value => value.cpuUs)}×  throughput ${ratio(name, 'floor', value => value.perSecond)}×  p99 ${ratio(name, 'floor', value => value.p99)}×`);
		}

		console.log(`this / other: CPU ${ratio('this', 'other', value => value.cpuUs)}× (main thread ${ratio('this', 'other', value => value.mainUs)}×)  throughput ${ratio('this', 'other', value => value.perSecond)}×  p99 ${ratio('this', 'other', value => value.p99)}×`);
	} finally {
		for (const name of names) {
			await children[name].stop('SIGTERM');
		}
	}
} finally {
	await platform.close();
	rmSync(configDir, {recursive: true, force: true});
}
