import {defineConfig} from 'vitest/config';

export default defineConfig({
	test: {
		root: new URL('..', import.meta.url).pathname,
		include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
		pool: 'forks',
		// Hang limits, not speed limits: a test waits on events, and these only end one that hangs
		// (far past what the slowest test needs on a loaded 2-core machine).
		testTimeout: 300_000,
		hookTimeout: 120_000,
		setupFiles: ['test/setup.ts'],
	},
});
