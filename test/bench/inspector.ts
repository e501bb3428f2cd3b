/**
 * The event inspector on a journal of 1 000 000 events (written straight into LMDB by the test
 * fixture), side by side with one of 1 000: time from process start to the first page, time to
 * page down 200 pages, and peak RSS, each run in a fresh process from the build (inspector-open.js,
 * after `npm run build`), 3 runs each, the median printed. Goals for 1 000 000: first page ≤ 1 s, peak RSS ≤ 150 MiB.
 *
 * Run: node --import tsx test/bench/inspector.ts
 */
import {spawnSync} from 'node:child_process';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {fillJournal, fixtureEvent} from '../ui/events/journal-fixture.js';

type Run = {firstPageMs: number; fromOpenMs: number; pagingMs: number; maxRssMiB: number};

const child = fileURLToPath(new URL('inspector-open.js', import.meta.url));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

function measure(directory: string, count: number): Run {
	const runs: Run[] = [];
	for (let index = 0; index < 3; index++) {
		const result = spawnSync(process.execPath, [child, directory, fixtureEvent(count - 1).id, '200'], {encoding: 'utf8'});
		if (result.status !== 0) {
			throw new Error(`the inspector run failed: ${result.stderr}`);
		}

		runs.push(JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as Run);
	}

	return {firstPageMs: median(runs.map(run => run.firstPageMs)), fromOpenMs: median(runs.map(run => run.fromOpenMs)), pagingMs: median(runs.map(run => run.pagingMs)), maxRssMiB: median(runs.map(run => run.maxRssMiB))};
}

const folders: string[] = [];
try {
	const results: Array<[number, Run]> = [];
	for (const count of [1000, 1_000_000]) {
		const directory = mkdtempSync(path.join(tmpdir(), 'platform-tui-bench-inspector-'));
		folders.push(directory);
		const started = performance.now();
		await fillJournal(directory, count, {newestMs: Date.now() - 60_000});
		console.log(`filled ${count} events in ${((performance.now() - started) / 1000).toFixed(1)} s`);
		results.push([count, measure(directory, count)]);
	}

	for (const [count, run] of results) {
		console.log(`${String(count).padStart(9)} events: first page ${run.firstPageMs.toFixed(0)} ms from process start (${run.fromOpenMs.toFixed(0)} ms from the journal's open), 200 pages down ${run.pagingMs.toFixed(0)} ms, peak RSS ${run.maxRssMiB.toFixed(1)} MiB`);
	}

	const [small, large] = [results[0]?.[1], results[1]?.[1]];
	if (small && large) {
		console.log(`ratio 1 000 000 / 1 000: first page ${(large.firstPageMs / small.firstPageMs).toFixed(2)}×, peak RSS ${(large.maxRssMiB / small.maxRssMiB).toFixed(2)}×`);
		console.log(`goal first page ≤ 1000 ms: ${large.firstPageMs <= 1000 ? 'met' : 'NOT met'} (${large.firstPageMs.toFixed(0)} ms); goal peak RSS ≤ 150 MiB: ${large.maxRssMiB <= 150 ? 'met' : 'NOT met'} (${large.maxRssMiB.toFixed(1)} MiB)`);
	}
} finally {
	for (const folder of folders) {
		rmSync(folder, {recursive: true, force: true});
	}
}
