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
import {cliPath, flushedAppendScript, startChild, startServe, type Child} from './receiver-harness.js';
import {figuresOf, ratioText, rotatingRounds, roundLine, type Figures} from './receiver-rounds.js';

const other = defined(process.argv[2], 'the other build\'s cli.js (argument 1)');
const rounds = Number(process.argv[3] ?? 6);
const requests = Number(process.argv[4] ?? 10_000);
const thisCli = process.argv[5] ?? cliPath;
const names = ['floor', 'this', 'other'] as const;
type Name = (typeof names)[number];

const configDir = mkdtempSync(path.join(tmpdir(), 'platform-tui-compare-'));
const platform = await startLocalPlatform();
try {
	const children: Record<Name, Child> = {
		floor: await startChild(['-e', flushedAppendScript, path.join(configDir, 'flushed-append.bin')], process.env, path.join(configDir, 'floor.log')),
		this: await startServe(platform, configDir, path.join(configDir, 'this.log'), [], [], thisCli),
		other: await startServe(platform, configDir, path.join(configDir, 'other.log'), [], [], other),
	};
	try {
		const results = await rotatingRounds(children, names, rounds, async target => figuresOf(target, requests), (round, index) => {
			console.log(roundLine(names, round, index));
		});
		const times = (name: Name, base: Name, figure: (value: Figures) => number) => ratioText(results, name, base, figure);
		for (const name of ['this', 'other'] as const) {
			console.log(`${name} / floor: CPU ${times(name, 'floor', value => value.cpuUs)}×  throughput ${times(name, 'floor', value => value.perSecond)}×  p99 ${times(name, 'floor', value => value.p99)}×`);
		}

		console.log(`this / other: CPU ${times('this', 'other', value => value.cpuUs)}× (main thread ${times('this', 'other', value => value.mainUs)}×)  throughput ${times('this', 'other', value => value.perSecond)}×  p99 ${times('this', 'other', value => value.p99)}×`);
	} finally {
		for (const name of names) {
			await children[name].stop('SIGTERM');
		}
	}
} finally {
	await platform.close();
	rmSync(configDir, {recursive: true, force: true});
}
