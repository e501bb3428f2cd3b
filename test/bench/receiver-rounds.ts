/**
 * Rotating rounds of the same fresh deliveries to several servers, for every side-by-side
 * comparison of the receiver benches (receiver.ts, receiver-compare.ts, receiver-bound.ts): each
 * server is warmed first, then each round measures every server once, the order turning a step
 * each round so a slow spell of the machine does not always hit the same one; every ratio is the
 * median of the rounds' own ratios.
 */
import {defined} from '../support/defined.js';
import {deliveries, fmt, load, median, threadCpuMs, type Child} from './receiver-harness.js';

/**
 * A serve's CPU per delivery keeps falling over its first tens of thousands of deliveries (V8's
 * compilers, the heap, the journal's first pages), so each server is warmed with 10 000 first.
 */
export const warmupCount = 10_000;

/** One server's figures in a round: CPU time is the process's own (every thread, from /proc), and its main thread's. */
export type Figures = {perSecond: number; p99: number; cpuUs: number; mainUs: number};

function cpuSplit(pid: number): {all: number; main: number} {
	let all = 0;
	const threads = threadCpuMs(pid);
	for (const ms of threads.values()) {
		all += ms;
	}

	return {all, main: threads.get('main') ?? 0};
}

/** The figures of `requests` fresh deliveries to `target`, every one of which must be answered 200. */
export async function figuresOf(target: Child, requests: number): Promise<Figures> {
	const items = deliveries(requests);
	const before = cpuSplit(target.pid);
	const result = await load(target.url, items);
	const after = cpuSplit(target.pid);
	if (result.non200 > 0) {
		throw new Error(`${result.non200} deliveries were not answered 200`);
	}

	return {perSecond: result.perSecond, p99: result.p99, cpuUs: ((after.all - before.all) * 1000) / requests, mainUs: ((after.main - before.main) * 1000) / requests};
}

/** Warms each server, then runs the rounds, each server measured by `measure`; `onRound` gets each round as it ends. */
export async function rotatingRounds<Name extends string, R>(children: Record<Name, Child>, names: readonly Name[], rounds: number, measure: (target: Child) => Promise<R>, onRound: (round: Record<Name, R>, index: number) => void): Promise<Array<Record<Name, R>>> {
	for (const name of names) {
		await load(children[name].url, deliveries(warmupCount));
	}

	const results: Array<Record<Name, R>> = [];
	for (let index = 0; index < rounds; index++) {
		const round: Partial<Record<Name, R>> = {};
		for (let offset = 0; offset < names.length; offset++) {
			const name = defined(names[(index + offset) % names.length], 'a name');
			round[name] = await measure(children[name]);
		}

		const complete = round as Record<Name, R>;
		results.push(complete);
		onRound(complete, index);
	}

	return results;
}

/** One line of a round's figures, server by server. */
export function roundLine<Name extends string>(names: readonly Name[], round: Record<Name, Figures>, index: number): string {
	return `round ${index + 1}: ${names.map(name => `${name} ${fmt(round[name].perSecond, 0)} req/s ${fmt(round[name].cpuUs)} µs (main ${fmt(round[name].mainUs)}) p99 ${fmt(round[name].p99)} ms`).join(' | ')}`;
}

/** The median over rounds of `name`'s figure divided by `base`'s in the same round; undefined when no round has both. */
export function ratioOf<Name extends string, R>(results: Array<Record<Name, R>>, name: Name, base: Name, figure: (round: R) => number | undefined): number | undefined {
	const ratios: number[] = [];
	for (const round of results) {
		const value = figure(round[name]);
		const against = figure(round[base]);
		if (value !== undefined && against !== undefined && against > 0) {
			ratios.push(value / against);
		}
	}

	return ratios.length > 0 ? median(ratios) : undefined;
}

/** `ratioOf` as text with two decimals ('?' when no round has both). */
export function ratioText<Name extends string, R>(results: Array<Record<Name, R>>, name: Name, base: Name, figure: (round: R) => number | undefined): string {
	const value = ratioOf(results, name, base, figure);
	return value === undefined ? '?' : fmt(value, 2);
}
