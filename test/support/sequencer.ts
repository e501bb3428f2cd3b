/**
 * The order the suite's files start in. Vitest's own order (projects by name, then the slowest of
 * the last run, or the largest file when there was none) starts the process tier after the whole
 * integration tier, and a fresh clone has no last run: the longest files (a child CLI, Redis, a
 * pty, each mostly waiting) then start late and end the run alone. Here the process tier goes
 * first, then unit (a few of its files are heavy on CPU: a million-event journal, property tests),
 * then the many short integration files that fill the end; within a tier the slowest of the last
 * run first, else the largest file. A file whose opening comment says `@start-first` starts before
 * all of them: one that spends long on a fixture (a journal of a million events) would otherwise
 * start late in its tier and end the run alone.
 */
import {readFileSync} from 'node:fs';
import {relative} from 'node:path';
import {BaseSequencer, type TestSpecification} from 'vitest/node';
import type {Tier} from './tiers.js';

/** Whether the file's opening comment holds `@start-first`. */
function startsFirst(file: string): boolean {
	return /^\/\*\*(?:(?!\*\/)[\s\S])*@start-first/.test(readFileSync(file, 'utf8').slice(0, 4000));
}

/** The projects of test/vitest.config.ts (one per tier, named as in tiers.ts), in the order they start. */
const tierOrder: readonly string[] = ['process', 'unit', 'integration'] satisfies Tier[];

export class TierSequencer extends BaseSequencer {
	override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
		const {cache, config} = this.ctx;
		const weight = (file: TestSpecification): number => {
			const key = `${file.project.name}:${relative(config.root, file.moduleId)}`;
			// A duration in ms (last run) ranks above any size in bytes / 1000 (no last run).
			return cache.getFileTestResults(key)?.duration ?? (cache.getFileStats(key)?.size ?? 0) / 1000;
		};

		const tier = (file: TestSpecification): number => {
			const index = tierOrder.indexOf(file.project.name);
			return index === -1 ? tierOrder.length : index;
		};

		const first = new Map(files.map(file => [file.moduleId, startsFirst(file.moduleId)]));
		const rank = (file: TestSpecification): number => first.get(file.moduleId) === true ? -1 : tier(file);
		return Promise.resolve([...files].sort((a, b) => rank(a) - rank(b) || weight(b) - weight(a)));
	}
}
