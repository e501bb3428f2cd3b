/**
 * How close any store could bring `serve` to the flush floor: a variant of `serve` built with its
 * journal swapped out (store-bound.ts), run storing nothing and with the floor's own append in the
 * journal's place, beside the floor and the real `serve`, in rotating rounds (receiver-rounds.ts).
 * Everything else of the delivery path is the real one: headers, signature, Created-At, JSON,
 * classification, the `--json` line, the counters and the response. No goal: the figures bound
 * what the receiver goals leave to the store.
 */
import {rmSync} from 'node:fs';
import path from 'node:path';
import {fileURLToPath, pathToFileURL} from 'node:url';
import {build, type BuildOptions, type Plugin} from 'esbuild';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {flushedAppendScript, root, serveEnv, startChild, startServe, type Child} from './receiver-harness.js';
import {figuresOf, ratioText, rotatingRounds, type Figures} from './receiver-rounds.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const names = ['floor', 'serve', 'memory', 'append'] as const;
type Name = (typeof names)[number];

/** The variant's bundle (beside node_modules, whose native modules it loads); its cli.js. */
async function buildVariant(): Promise<string> {
	const outdir = path.join(root, 'node_modules/.cache/platform-tui-bench/store-bound');
	const {options} = (await import(pathToFileURL(path.join(root, 'esbuild.config.mjs')).href)) as {options: BuildOptions};
	const swap: Plugin = {
		name: 'store-bound',
		setup(context) {
			context.onResolve({filter: /^\.\.\/journal\/index\.js$/}, args => (args.importer.endsWith(path.join('receiver', 'store', 'open-backend.ts')) ? {path: path.join(here, 'store-bound.ts')} : undefined));
		},
	};
	rmSync(outdir, {recursive: true, force: true});
	await build({...options, entryPoints: {cli: 'source/main.ts'}, outdir, absWorkingDir: root, plugins: [swap]});
	return path.join(outdir, 'cli.js');
}

export async function storeBound(platform: LocalPlatform, configDir: string, rounds: number, requests: number): Promise<void> {
	console.log(`\nHow close any store could come: serve with its journal swapped out at build time (store-bound.ts), beside the floor and serve, ${rounds} rotating rounds of ${requests} deliveries`);
	const variant = await buildVariant();
	const startVariant = async (store: 'memory' | 'append') => startChild([variant, 'serve', '--port', '0', '--json'], {...serveEnv(platform, configDir), BENCH_STORE_BOUND: store}, path.join(configDir, `bound-${store}.log`));
	const children: Partial<Record<Name, Child>> = {};
	try {
		children.floor = await startChild(['-e', flushedAppendScript, path.join(configDir, 'bound-floor.bin')], process.env, path.join(configDir, 'bound-floor.log'));
		children.serve = await startServe(platform, configDir, path.join(configDir, 'bound-serve.log'));
		children.memory = await startVariant('memory');
		children.append = await startVariant('append');
		const results = await rotatingRounds(children as Record<Name, Child>, names, rounds, async target => figuresOf(target, requests), () => undefined);
		const times = (name: Name, base: Name, figure: (value: Figures) => number) => ratioText(results, name, base, figure);
		const against = (name: Name) => `CPU ${times(name, 'floor', value => value.cpuUs)}× the floor's, throughput ${times(name, 'floor', value => value.perSecond)}×`;
		console.log(`  serve with its journal:                                 ${against('serve')}`);
		console.log(`  serve storing nothing (the memory backend in its place): ${against('memory')}`);
		console.log(`  serve with the floor's append in its place:             ${against('append')}`);
		console.log(`  the journal over the append: CPU ${times('serve', 'append', value => value.cpuUs)}× (main thread ${times('serve', 'append', value => value.mainUs)}×), throughput ${times('serve', 'append', value => value.perSecond)}×`);
	} finally {
		for (const child of Object.values(children)) {
			await child.stop('SIGTERM');
		}
	}
}
