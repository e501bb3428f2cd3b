/**
 * Help in a real terminal: the built CLI in a pseudo-terminal of 60 columns wraps `--help` and a
 * command's help to the window (help-width.test.ts checks the layout itself, in-process).
 */
import {describe, expect, it} from 'vitest';
import {runInPty, stripAnsi} from '../support/pty.js';

describe('help in a 60-column terminal', () => {
	it.each([['--help'], ['serve', '--help']])('%s %s has no line past 60 columns', async (...argv: string[]) => {
		const session = runInPty(argv, {columns: 60, rows: 15});
		const {code, output} = await session.exit();
		expect(code).toBe(0);
		const lines = stripAnsi(output).split(/\r?\n/);
		expect(lines.some(line => line.includes('USAGE'))).toBe(true);
		expect(lines.filter(line => line.length > 60 && /\S\s+\S/.test(line.trim().replace(/ \\$/, '')))).toEqual([]);
	});
});
