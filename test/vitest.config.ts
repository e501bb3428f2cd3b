import {defineConfig} from 'vitest/config';

export default defineConfig({
	test: {
		root: new URL('..', import.meta.url).pathname,
		include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
		pool: 'forks',
		testTimeout: 30_000,
		hookTimeout: 30_000,
		setupFiles: ['test/setup.ts'],
	},
});
