import {fileURLToPath} from 'node:url';
import {defineConfig} from 'vitest/config';
import {testFilesByTier} from './support/tiers.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const tiers = testFilesByTier(fileURLToPath(new URL('.', import.meta.url)));

/**
 * Workers for the whole run. Most of the process tier's time is spent waiting (on a child CLI, a
 * pty, Redis, a platform step), so more workers than cores use that time. On an idle 2-core
 * machine, the whole suite (942 tests) took 200 s of vitest time with 3 workers and 157 s with 4,
 * both green; 4 is kept.
 */
const workers = 4;

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
	// Pure code and files: no build, no sockets, no other program.
	{test: {...shared, name: 'unit', include: tiers.unit, pool: 'threads' as const}},
	// The local platform or another server on loopback, in this process.
	{test: {...shared, name: 'integration', include: tiers.integration, pool: 'threads' as const}},
	// The built CLI, pseudo-terminals, redis-server, shells and other child programs.
	{test: {...shared, name: 'process', include: tiers.process, pool: 'forks' as const}},
];

export default defineConfig({
	test: {
		root,
		maxWorkers: workers,
		globalSetup: ['test/support/temp-root.ts'],
		projects,
	},
});
