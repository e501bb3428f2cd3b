/**
 * The event inspector on a journal of 1 000 000 events (written straight into LMDB by the test
 * fixture), side by side with one of 1 000, each run in a fresh process, runs alternating between
 * the two journals, the median printed:
 *
 * 1. The real command (inspector-pty.ts): `dist/cli.js events --data-dir DIR` in an 80×24
 *    pseudo-terminal, time from the spawn to the newest event's id on the terminal, the CPU time
 *    and peak RSS of the process then; then 200 pages down (PgDn held: one every 30 ms) until the row the
 *    cursor lands on shows, and the peak RSS after. The goals are checked on these figures: for 1 000 000 events, first
 *    page ≤ 1 s and peak RSS (scrolling included) ≤ 150 MiB.
 * 2. The screen alone (inspector-open.js, from source through tsx): the InspectorScreen rendered
 *    with ink-testing-library on the opened journal, time to the first page from process start and from the journal's open,
 *    time to page down 200 pages (one key and one frame at a time), and peak RSS.
 *
 * Run: node --import tsx test/bench/inspector.ts (or `npm run bench -- inspector`)
 */
import {spawnSync} from 'node:child_process';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {fillJournal, fixtureEvent} from '../ui/events/journal-fixture.js';
import {runInspectorInPty, type PtyRun} from './inspector-pty.js';

type ScreenRun = {firstPageMs: number; fromOpenMs: number; pagingMs: number; maxRssMiB: number};
type Journal = {count: number; directory: string; newestId: string};

/**
 * PgDn presses in each run, one every 30 ms as a held key repeats, and the rows one moves in an
 * 80×24 pty: the screen keeps a header, the table's heading, a free line and the key hint (two
 * lines at 80 columns) for itself.
 */
const pages = 200;
const keyGapMs = 30;
const rowsPerPage = 24 - 5;

const counts = [1000, 1_000_000] as const;
const ptyRuns = 5;
const screenRuns = 3;
const goalMs = 1000;
const goalMiB = 150;
const child = fileURLToPath(new URL('inspector-open.js', import.meta.url));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

function medianOf<T extends Record<string, number>>(runs: T[]): T {
	const first = runs[0];
	if (!first) {
		throw new Error('no runs');
	}

	return Object.fromEntries(Object.keys(first).map(key => [key, median(runs.map(run => run[key] ?? Number.NaN))])) as T;
}

function screenRun(journal: Journal): ScreenRun {
	const result = spawnSync(process.execPath, ['--import', 'tsx', child, journal.directory, journal.newestId, String(pages)], {encoding: 'utf8'});
	if (result.status !== 0) {
		throw new Error(`the inspector run failed: ${result.stderr}`);
	}

	return JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as ScreenRun;
}

/** `runs` runs of `measure` on each journal, alternating between them (load on the machine falls on both). */
async function sideBySide<T extends Record<string, number>>(journals: Journal[], runs: number, measure: (journal: Journal) => T | Promise<T>): Promise<T[]> {
	const all: T[][] = journals.map(() => []);
	for (let index = 0; index < runs; index++) {
		for (const [at, journal] of journals.entries()) {
			all[at]?.push(await measure(journal));
		}
	}

	return all.map(each => medianOf(each));
}

const ratio = (large: number, small: number) => `${(large / small).toFixed(2)}×`;
const events = (count: number) => String(count).padStart(9);
const goal = (value: number, limit: number, unit: string) => `${value <= limit ? 'met' : 'NOT met'} (${value.toFixed(unit === 'ms' ? 0 : 1)} ${unit})`;

const journals: Journal[] = [];
try {
	for (const count of counts) {
		const directory = mkdtempSync(path.join(tmpdir(), 'platform-tui-bench-inspector-'));
		journals.push({count, directory, newestId: fixtureEvent(count - 1).id});
		const started = performance.now();
		await fillJournal(directory, count, {newestMs: Date.now() - 60_000});
		console.log(`filled ${count} events in ${((performance.now() - started) / 1000).toFixed(1)} s`);
	}

	const pty = await sideBySide<PtyRun>(journals, ptyRuns, async journal => runInspectorInPty(journal.directory, {
		newestId: journal.newestId,
		pages,
		keyGapMs,
		pagedId: fixtureEvent(Math.max(0, journal.count - 1 - (pages * rowsPerPage))).id,
	}));
	const screen = await sideBySide<ScreenRun>(journals, screenRuns, screenRun);
	console.log(`\nthe real command: dist/cli.js events --data-dir DIR in an 80×24 pty (median of ${ptyRuns})`);
	for (const [at, journal] of journals.entries()) {
		const run = pty[at];
		console.log(`${events(journal.count)} events: first page ${run?.firstPageMs.toFixed(0)} ms from spawn (${run?.firstPageCpuMs.toFixed(0)} ms of CPU, peak RSS then ${run?.firstPageRssMiB.toFixed(1)} MiB), ${pages} pages down (one every ${keyGapMs} ms) ${run?.pagingMs.toFixed(0)} ms, peak RSS ${run?.peakRssMiB.toFixed(1)} MiB`);
	}

	const [small, large] = pty;
	if (small && large) {
		console.log(`ratio 1 000 000 / 1 000: first page ${ratio(large.firstPageMs, small.firstPageMs)} (CPU ${ratio(large.firstPageCpuMs, small.firstPageCpuMs)}), peak RSS ${ratio(large.peakRssMiB, small.peakRssMiB)}`);
	}

	console.log(`\nthe screen alone: InspectorScreen with ink-testing-library, inspector-open.js (median of ${screenRuns})`);
	for (const [at, journal] of journals.entries()) {
		const run = screen[at];
		console.log(`${events(journal.count)} events: first page ${run?.firstPageMs.toFixed(0)} ms from process start (${run?.fromOpenMs.toFixed(0)} ms from the journal's open), ${pages} pages down ${run?.pagingMs.toFixed(0)} ms, peak RSS ${run?.maxRssMiB.toFixed(1)} MiB`);
	}

	const [smallScreen, largeScreen] = screen;
	if (smallScreen && largeScreen) {
		console.log(`ratio 1 000 000 / 1 000: first page ${ratio(largeScreen.firstPageMs, smallScreen.firstPageMs)}, peak RSS ${ratio(largeScreen.maxRssMiB, smallScreen.maxRssMiB)}`);
	}

	if (large) {
		console.log(`\ngoal (the real command, 1 000 000 events) first page ≤ ${goalMs} ms: ${goal(large.firstPageMs, goalMs, 'ms')}; peak RSS ≤ ${goalMiB} MiB: ${goal(large.peakRssMiB, goalMiB, 'MiB')}`);
	}
} finally {
	for (const journal of journals) {
		rmSync(journal.directory, {recursive: true, force: true});
	}
}
