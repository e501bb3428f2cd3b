/** The suite's tiers (test/support/tiers.ts): each test file in one, by what it does. */
import {readFileSync} from 'node:fs';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';
import type {TestSpecification} from 'vitest/node';
import {TierSequencer} from '../support/sequencer.js';
import {testFilesByTier} from '../support/tiers.js';

const testRoot = fileURLToPath(new URL('..', import.meta.url));
const tiers = testFilesByTier(testRoot);
const repositoryFile = (file: string) => readFileSync(fileURLToPath(new URL(`../../${file}`, import.meta.url)), 'utf8');

describe('test tiers', () => {
	it('puts every test file in exactly one tier, this one among the unit tests', () => {
		const all = [...tiers.unit, ...tiers.integration, ...tiers.process];
		expect(new Set(all).size).toBe(all.length);
		expect(tiers.unit).toContain('test/cli/tiers.test.ts');
		expect(tiers.unit.length).toBeGreaterThan(0);
		expect(tiers.integration.length).toBeGreaterThan(0);
		expect(tiers.process.length).toBeGreaterThan(0);
	});

	it('runs nothing that starts another program or opens a socket among the unit tests', () => {
		for (const file of tiers.unit) {
			const source = repositoryFile(file);
			expect(source, file).not.toMatch(/from ['"]node:(child_process|http|https|net)['"]/);
			expect(source, file).not.toMatch(/support\/(cli|pty|redis|shells|unprivileged|platform)\.js/);
		}
	});

	it('follows helpers by the functions a file uses: a helper that can start a program does not pull in a file that only uses its pure functions', () => {
		// receiver/journal/helpers.ts starts holder processes (startHolder) and makes events (newEvent).
		expect(tiers.process).toContain('test/faults/killed-replay.test.ts');
		expect(tiers.unit).toContain('test/receiver/journal/record-codec.test.ts');
		// Through support/ helpers: the built CLI, Redis, a pty, the local platform.
		expect(tiers.process).toEqual(expect.arrayContaining(['test/receiver/redis/replicas.test.ts', 'test/ui/serve/pty.test.ts', 'test/ui/upload/pty.test.ts', 'test/cli/completion-shells.test.ts', 'test/faults/read-only-journal.test.ts']));
		expect(tiers.integration).toEqual(expect.arrayContaining(['test/local-platform/http/auth.test.ts', 'test/workflow/sync.test.ts']));
	});

	it('is what vitest runs: the config reads the same tiers', async () => {
		const {projects: configured} = await import('../vitest.config.js');
		const projects: Record<string, string[]> = {};
		for (const project of configured) {
			projects[project.test.name] = project.test.include;
		}

		expect(projects).toEqual({unit: tiers.unit, integration: tiers.integration, process: tiers.process});
	});

	it('starts a file marked @start-first before all others, then the process tier, unit and integration (a fresh clone: no last run)', async () => {
		const root = fileURLToPath(new URL('../..', import.meta.url));
		const spec = (project: string, file: string) => ({project: {name: project}, moduleId: `${root}${file}`});
		const files = [
			spec('integration', 'test/receiver/intake/routes.test.ts'),
			spec('unit', 'test/cli/docs.test.ts'),
			spec('unit', 'test/ui/events/inspector-million.test.tsx'),
			spec('process', 'test/keys/cli.test.ts'),
		];
		// Only what the sequencer reads of vitest: the root and a cache without a last run.
		const context = {config: {root}, cache: {getFileTestResults: () => undefined, getFileStats: () => undefined}};
		const sequencer = new TierSequencer(context as unknown as ConstructorParameters<typeof TierSequencer>[0]);
		const sorted = await sequencer.sort(files as unknown as TestSpecification[]);
		expect(sorted.map(file => file.moduleId.slice(root.length))).toEqual([
			'test/ui/events/inspector-million.test.tsx',
			'test/keys/cli.test.ts',
			'test/cli/docs.test.ts',
			'test/receiver/intake/routes.test.ts',
		]);
	});
});
