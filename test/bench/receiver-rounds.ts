/**
 * Rotating rounds of the same fresh deliveries to several servers (the order turning each round),
 * for the side-by-side comparisons of receiver-compare.ts and receiver-bound.ts. CPU time is the
 * server process's own (every thread, from /proc), split into its main thread and the rest; each
 * ratio is the median of the rounds' own ratios.
 */
import {defined} from '../support/defined.js';
import {deliveries, fmt, load, median, threadCpuMs, type Child} from './receiver-harness.js';

export type Figures = {perSecond: number; p99: number; cpuUs: number; mainUs: number};

function cpuSplit(pid: number): {all: number; main: number} {
	let all = 0;
	const threads = threadCpuMs(pid);
	for (const ms of threads.values()) {
		all += ms;
	}

	return {all, main: threads.get('main') ?? 0};
}

async function measure(target: Child, requests: number): Promise<Figures> {
	const items = deliveries(requests);
	const before = cpuSplit(target.pid);
	const result = await load(target.url, items);
	const after = cpuSplit(target.pid);
	if (result.non200 > 0) {
		throw new Error(`${result.non200} deliveries were not answered 200`);
	}

	return {perSecond: result.perSecond, p99: result.p99, cpuUs: ((after.all - before.all) * 1000) / requests, mainUs: ((after.main - before.main) * 1000) / requests};
}

/** Warms each server with 10 000 deliveries, then runs the rounds; `show` gets each round's line. */
export async function rotatingRounds<Name extends string>(children: Record<Name, Child>, names: readonly Name[], rounds: number, requests: number, show: (line: string) => void): Promise<Array<Record<Name, Figures>>> {
	for (const name of names) {
		await load(children[name].url, deliveries(10_000));
	}

	const results: Array<Record<Name, Figures>> = [];
	for (let index = 0; index < rounds; index++) {
		const round: Partial<Record<Name, Figures>> = {};
		for (let offset = 0; offset < names.length; offset++) {
			const name = defined(names[(index + offset) % names.length], 'a name');
			round[name] = await measure(children[name], requests);
		}

		const complete = round as Record<Name, Figures>;
		results.push(complete);
		show(`round ${index + 1}: ${names.map(name => `${name} ${fmt(complete[name].perSecond, 0)} req/s ${fmt(complete[name].cpuUs)} µs (main ${fmt(complete[name].mainUs)}) p99 ${fmt(complete[name].p99)} ms`).join(' | ')}`);
	}

	return results;
}

/** The median of the rounds' own ratios of `name` to `base` in `figure`. */
export function ratio<Name extends string>(results: Array<Record<Name, Figures>>, name: Name, base: Name, figure: (value: Figures) => number): number {
	return median(results.map(round => figure(round[name]) / figure(round[base])));
}
