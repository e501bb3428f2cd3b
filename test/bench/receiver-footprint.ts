/**
 * What one delivery leaves behind in `serve` (journal on), for the receiver benchmark:
 *
 * - hidden classes: V8 logs every map (hidden class) it creates under `--log-maps`; two serves
 *   take `small` and `large` deliveries, and the difference of their map counts over the
 *   difference of their deliveries is the number created per delivery once warm (0 when every
 *   object on the path keeps one shape);
 * - memory: one serve takes 10 000 deliveries, then 45 000 and 45 000 more; anonymous RSS (heap,
 *   malloc) and file-backed RSS (the journal's memory-mapped pages, the binary) are read from
 *   /proc after each.
 */
import {readFileSync} from 'node:fs';
import path from 'node:path';
import {setTimeout as sleep} from 'node:timers/promises';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {deliveries, fmt, load, loadMany, rssMiB, startServe} from './receiver-harness.js';

/** Maps V8 created in one serve that took `count` deliveries. */
async function mapsAfter(platform: LocalPlatform, configDir: string, count: number): Promise<number> {
	const logFile = path.join(configDir, `v8-maps-${count}.log`);
	const serve = await startServe(platform, configDir, path.join(configDir, `serve-maps-${count}.log`), ['--log-maps', '--no-logfile-per-isolate', `--logfile=${logFile}`]);
	try {
		const result = await load(serve.url, deliveries(count));
		if (result.non200 > 0) {
			throw new Error(`${result.non200} deliveries were not answered 200`);
		}
	} finally {
		await serve.stop('SIGTERM');
	}

	let maps = 0;
	for (const line of readFileSync(logFile, 'utf8').split('\n')) {
		if (line.startsWith('map-create,')) {
			maps++;
		}
	}

	return maps;
}

/** Hidden classes created per delivery by a warm serve (see above). */
export async function hiddenClassesPerDelivery(platform: LocalPlatform, configDir: string, small = 1000, large = 3000): Promise<number> {
	const few = await mapsAfter(platform, configDir, small);
	const many = await mapsAfter(platform, configDir, large);
	return (many - few) / (large - small);
}

type Rss = {anon: number; file: number};

export type MemoryGrowth = {early: Rss; middle: Rss; late: Rss; earlyCount: number; middleCount: number; lateCount: number; non200: number};

/**
 * RssAnon and RssFile of one serve after `earlyCount`, halfway and after `lateCount` deliveries,
 * MiB (the halfway reading tells a heap still growing to its working size from a leak).
 */
export async function memoryGrowth(platform: LocalPlatform, configDir: string, earlyCount = 10_000, lateCount = 100_000): Promise<MemoryGrowth> {
	const serve = await startServe(platform, configDir, path.join(configDir, 'serve-memory.log'));
	try {
		let non200 = await loadMany(serve.url, earlyCount);
		// Past the index's next batch (1 s), so both readings see the same steady state.
		await sleep(1500);
		const early = rssMiB(serve.pid);
		const middleCount = Math.round((earlyCount + lateCount) / 2);
		non200 += await loadMany(serve.url, middleCount - earlyCount);
		await sleep(1500);
		const middle = rssMiB(serve.pid);
		non200 += await loadMany(serve.url, lateCount - middleCount);
		await sleep(1500);
		const late = rssMiB(serve.pid);
		return {early, middle, late, earlyCount, middleCount, lateCount, non200};
	} finally {
		await serve.stop('SIGTERM');
	}
}

export function showMemory(growth: MemoryGrowth, goalMiB = 30): string[] {
	const grown = growth.late.anon - growth.early.anon;
	const count = (value: number) => `${value / 1000}k`;
	return [
		`  serve RSS after ${count(growth.earlyCount)} deliveries: RssAnon ${fmt(growth.early.anon)} MiB, RssFile ${fmt(growth.early.file)} MiB (file-backed: the journal's mapped pages, the node binary)`,
		`  serve RSS after ${count(growth.middleCount)} deliveries: RssAnon ${fmt(growth.middle.anon)} MiB, RssFile ${fmt(growth.middle.file)} MiB`,
		`  serve RSS after ${count(growth.lateCount)} deliveries: RssAnon ${fmt(growth.late.anon)} MiB, RssFile ${fmt(growth.late.file)} MiB${growth.non200 > 0 ? `  (${growth.non200} non-200!)` : ''}`,
		`  RESULT RssAnon growth ${count(growth.earlyCount)} → ${count(growth.lateCount)} deliveries: ${grown >= 0 ? '+' : ''}${fmt(grown)} MiB (goal ≤ ${goalMiB} MiB) ${grown <= goalMiB ? 'MET' : 'NOT MET'}; RssFile ${fmt(growth.early.file)} → ${fmt(growth.late.file)} MiB`,
	];
}
