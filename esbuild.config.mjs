/**
 * The build: source/ bundled by esbuild into dist/, with the JavaScript dependencies it uses.
 * Bundling reads and compiles only the parts of a dependency the CLI reaches: Ink, for one,
 * imports es-toolkit's whole compat index (about 400 modules) for one function. Every command
 * starts sooner for it (`completion zsh` 0.96 → 0.43 s of CPU, `serve --help` 0.23 → 0.16 s).
 * Commands still load on demand: each lazy import is a chunk of its own (splitting).
 *
 * Type checking is not part of the build: `npm run typecheck` (and CI) does it.
 *
 * Left to Node, from node_modules: native modules (lmdb and its msgpackr), packages that read files
 * beside their own code at run time (unpdf's PDF.js, yoga-layout's WebAssembly), what Ink imports
 * only for React DevTools, and conf, which loads only when a setting is written (its import is
 * what test/config/conf-writes.test.ts watches for). BullMQ (its Lua scripts are JavaScript
 * modules) and ioredis are bundled, one copy of ioredis for serve and BullMQ alike: `serve --redis`
 * starts and stops in 0.38–0.40 s of CPU instead of 0.52–0.60 s.
 */
import {realpathSync, rmSync} from 'node:fs';
import {fileURLToPath} from 'node:url';
import {build} from 'esbuild';

const outdir = 'dist';

/** The build's options; the receiver benchmark builds variants of `serve` from them (test/bench/receiver-bound.ts). */
export const options = {
	entryPoints: {
		cli: 'source/main.ts',
		// Started as a process of its own by the journal's reader (receiver/journal/reader.ts),
		// found beside the code that starts it: chunks and entries all live in dist/ itself.
		'reader-child': 'source/receiver/journal/reader-child.ts',
	},
	outdir,
	bundle: true,
	splitting: true,
	format: 'esm',
	platform: 'node',
	target: 'node20.19',
	jsx: 'automatic',
	sourcemap: true,
	// Class and function names stay as written (errors and logs name them).
	keepNames: true,
	external: ['lmdb', 'msgpackr', 'msgpackr-extract', 'unpdf', 'yoga-layout', 'react-devtools-core', 'conf'],
	// CommonJS dependencies bundled into ES modules still call require() for Node's own modules.
	banner: {js: 'import {createRequire as __createRequire} from \'node:module\'; const require = __createRequire(import.meta.url);'},
	logLevel: 'warning',
};

// Run as a script (`npm run build`), it builds dist/; imported, it only lends its options. The
// script's path is compared as the file system resolves it: Node loads a module from its real
// path, and a build run through a symbolic link must not quietly build nothing.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
	// Chunk names carry a hash: a fresh folder each time, so no chunk of an earlier build is left.
	rmSync(outdir, {recursive: true, force: true});
	await build(options);
}
