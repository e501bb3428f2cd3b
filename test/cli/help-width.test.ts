/**
 * Help is laid out by counting code points (source/cli/help.ts: a run without a terminal must not
 * load string-width), which is its display width only while every character of it takes exactly
 * one column. This holds it to that, for the main help, every group's and every command's, and
 * checks no line passes the width asked for.
 */
import stringWidth from 'string-width';
import {describe, expect, it} from 'vitest';
import {commandHelp, groupHelp, mainHelp} from '../../source/cli/help.js';
import {groups} from '../../source/cli/registry.js';
import {registry} from '../../source/commands/registry.js';

function expectSingleWidth(text: string, columns: number): void {
	for (const line of text.split('\n')) {
		const wide = Array.from(line).filter(character => stringWidth(character) !== 1 && character !== '');
		expect(wide, `help line with characters not one column wide: ${line}`).toEqual([]);
		// A line wider than the window is only one the layout cannot break (a usage line, a long flag).
		if (stringWidth(line) > columns) {
			expect(line.trim().includes(' ') && !line.startsWith('    $ '), `help line past ${columns} columns: ${line}`).toBe(false);
		}
	}
}

describe('help text', () => {
	it.each([60, 80, 120])('is one column a character and fits %i columns', async columns => {
		expectSingleWidth(mainHelp(registry, columns), columns);
		for (const group of groups(registry)) {
			expectSingleWidth(groupHelp(registry, group, columns), columns);
		}

		for (const entry of registry) {
			const loaded = (await entry.load()).default;
			expectSingleWidth(commandHelp(loaded, columns), columns);
		}
	});
});
