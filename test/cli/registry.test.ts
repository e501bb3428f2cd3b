/**
 * The registry is the list of the commands' declaration modules: each names its command once, and
 * the module it loads carries exactly those words and that summary.
 */
import {describe, expect, it} from 'vitest';
import {registry} from '../../source/cli/registry.js';

describe('the registry', () => {
	it('holds each command once', () => {
		const names = registry.map(entry => entry.words.join(' '));
		expect(new Set(names).size).toBe(names.length);
		expect(names).toContain('events replay');
	});

	it.each(registry.map(entry => [entry.words.join(' '), entry] as const))('%s loads a module named by its declaration', async (_name, entry) => {
		const {default: command} = await entry.load();
		expect(command.name).toEqual([...entry.words]);
		expect(command.summary).toBe(entry.summary);
	});
});
