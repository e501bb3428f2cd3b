/**
 * The registry declares each command once: its words, summary and module. The loaded command
 * carries exactly those words and that summary; its module declares neither.
 */
import {describe, expect, it} from 'vitest';
import {registry} from '../../source/commands/registry.js';
import {loadCommand} from '../../source/cli/run-cli.js';

const quiet = {write: () => true} as unknown as NodeJS.WritableStream;

describe('the registry', () => {
	it('holds each command once', () => {
		const names = registry.map(entry => entry.words.join(' '));
		expect(new Set(names).size).toBe(names.length);
		expect(names).toContain('events replay');
	});

	it.each(registry.map(entry => [entry.words.join(' '), entry] as const))('%s loads a command named by its entry', async (_name, entry) => {
		const command = await loadCommand(entry, {stdout: quiet, stderr: quiet});
		expect(command?.name).toEqual([...entry.words]);
		expect(command?.summary).toBe(entry.summary);
		const {default: module} = await entry.load();
		expect(module).not.toHaveProperty('name');
		expect(module).not.toHaveProperty('summary');
	});
});
