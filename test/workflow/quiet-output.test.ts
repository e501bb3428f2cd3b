/**
 * Plain output against the local platform: each file is named on one line at most (its final
 * state), --stats adds summary lines, and -q leaves only the reply and the history on stdout
 * and nothing on stderr.
 */
import {afterAll, beforeAll, describe, expect, it, onTestFinished} from 'vitest';
import upload from '../../source/commands/upload/upload.js';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {platformEnv, startPlatform} from '../support/platform.js';
import {runCommand} from '../support/run-command.js';
import {makeFolder} from './helpers.js';

const names = Array.from({length: 24}, (_, index) => `doc-${String(index).padStart(2, '0')}.txt`);

describe('upload output a person can skim', () => {
	let platform: LocalPlatform;
	beforeAll(async () => {
		platform = (await startPlatform()).platform;
	});
	afterAll(async () => platform.close());

	async function run(flags: Record<string, unknown>) {
		const folder = makeFolder(Object.fromEntries(names.map(name => [name, `${name} says the warranty lasts two years.\n`])));
		onTestFinished(folder.cleanup);
		return runCommand(upload, {argv: [folder.dir, 'How long is the warranty?'], flags: {pollInterval: '0.02', concurrency: '4', ...flags}, env: platformEnv(platform)});
	}

	it('plain: one line per file at most, and --stats summary lines', async () => {
		const result = await run({stats: '1ms'});
		expect(result.code, result.stderr).toBe(0);
		const lines = result.stderr.split('\n').filter(line => !line.startsWith('Files: ') && !line.startsWith('Stats: '));
		for (const name of names) {
			expect(lines.filter(line => line.includes(name)), name).toHaveLength(1);
		}

		expect(result.stderr).toMatch(/^Stats: \d+\/24 files uploaded, .+ elapsed$/m);
		expect(result.stdout).toMatch(/^Reply \(.+\): /);
	});

	it('-q: only the reply and the history', async () => {
		const result = await run({quiet: true, stats: '1ms'});
		expect(result.code).toBe(0);
		expect(result.stderr).toBe('');
		expect(result.stdout).toMatch(/^Reply \(.+\): .+\nHistory:\n {2}USER: How long is the warranty\?\n {2}ASSISTANT: /);
	});
});
