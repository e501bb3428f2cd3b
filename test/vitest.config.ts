import {fileURLToPath} from 'node:url';
import {defineConfig} from 'vitest/config';
import {TierSequencer} from './support/sequencer.js';
import {testFilesByTier} from './support/tiers.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const tiers = testFilesByTier(fileURLToPath(new URL('.', import.meta.url)));

/**
 * Workers for the whole run. Most of the process tier's time is spent waiting (on a child CLI, a
 * pty, Redis, a platform step), so more workers than cores use that time; past that the run is
 * CPU-bound. Measured on an idle 2-core machine, the whole suite (961 tests) alone, three runs
 * each, seconds of vitest (CPU seconds): 2 workers 161 (–), 152 (192), 157 (206); 3 workers 128
 * (208), 136 (233), 125 (208); 4 workers 119 (216), 135 (240), 141 (242). In `.ci/run`, with lint
 * and the typecheck beside it, 3 workers took 179 and 177 s and 4 took 150 s: 4 is kept. With the
 * bundled build (less CPU per child CLI), the whole `.ci/run` from fresh clones: 4 workers 152,
 * 178 and 152 s idle, 212 and 216 s beside two busy loops; 5 workers 145 s idle, 243 and 208 s
 * busy; 6 workers 161 s idle, 203 s busy. The spread between runs of one count is as wide as the
 * differences between counts, so 4 stayed. Since listen's churn test holds one worker for 61 s,
 * mostly waiting on the socket, a fifth keeps four for the rest: the whole `.ci/run` from fresh
 * clones (1 392 tests) took 135 s idle with 4 and 129 s with 5; with 5 (1 404 tests), 113 s idle
 * and 156 and 173 s beside two busy loops.
 */
const workers = 5;

// Hang limits, not speed limits: a test waits on events, and these only end one that hangs (far
// past what the slowest test needs on a loaded 2-core machine).
const shared = {
	root,
	setupFiles: ['test/setup.ts'],
	testTimeout: 300_000,
	hookTimeout: 120_000,
};

/** One project per tier (`npm run test:unit` runs the first alone). */
export const projects = [
	// Pure code and files: no build, no sockets, no other program. A worker keeps the modules it
	// loaded from one file to the next (no test mocks a module; each file still gets its own setup,
	// test/setup.ts): loading Ink, React, lmdb and undici once per worker instead of once per file.
	{test: {...shared, name: 'unit', include: tiers.unit, pool: 'threads' as const, isolate: false}},
	// The local platform or another server on loopback, in this process (modules kept as above).
	{test: {...shared, name: 'integration', include: tiers.integration, pool: 'threads' as const, isolate: false}},
	// The built CLI, pseudo-terminals, redis-server, shells and other child programs (modules kept
	// from file to file as above; each file stops the programs it started).
	{test: {...shared, name: 'process', include: tiers.process, pool: 'forks' as const, isolate: false}},
];

export default defineConfig({
	test: {
		root,
		maxWorkers: workers,
		globalSetup: ['test/support/temp-root.ts'],
		sequence: {sequencer: TierSequencer},
		projects,
	},
});
