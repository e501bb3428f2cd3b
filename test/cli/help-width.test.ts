/**
 * Help is laid out by counting code points (source/cli/help.ts: a run without a terminal must not
 * load string-width), which is its display width only while every character of it takes exactly
 * one column. This holds it to that, for the main help, every group's and every command's, and
 * checks what a terminal of some width gets: no line past the width but one the layout cannot
 * break (a single word), no word broken, and on a wide terminal the width used. Without a
 * terminal help keeps its fixed 80 columns, its USAGE and EXAMPLES lines whole.
 */
import stringWidth from 'string-width';
import {describe, expect, it} from 'vitest';
import {commandHelp, groupHelp, mainHelp} from '../../source/cli/help.js';
import {commandLine, commandWords} from '../../source/cli/help-lines.js';
import {groups} from '../../source/cli/registry.js';
import {registry} from '../../source/commands/registry.js';
import {memoryStream, type MemoryStream} from '../support/run-command.js';
import {runCliInProcess as run} from '../support/run-cli.js';

/** Every help text there is, at `columns` (undefined: as without a terminal). */
async function allHelp(columns: number | undefined): Promise<string[]> {
	const texts = [mainHelp(registry, columns), ...groups(registry).map(group => groupHelp(registry, group, columns))];
	for (const entry of registry) {
		texts.push(commandHelp((await entry.load()).default, columns));
	}

	return texts;
}

function expectSingleWidth(text: string): void {
	for (const line of text.split('\n')) {
		const wide = Array.from(line).filter(character => stringWidth(character) !== 1 && character !== '');
		expect(wide, `help line with characters not one column wide: ${line}`).toEqual([]);
	}
}

/** No line past `columns` but one holding a single (shell) word, the `$` of a command line and its ` \` aside. */
function expectFits(text: string, columns: number): void {
	for (const line of text.split('\n')) {
		if (stringWidth(line) > columns) {
			const words = commandWords(line.trim()).filter(word => word !== '$' && word !== '\\');
			expect(words, `help line past ${columns} columns: ${line}`).toHaveLength(1);
		}
	}
}

/** The words of a help text: a wrapped text has every word of the unwrapped one, whole. */
function wordsOf(text: string): Set<string> {
	return new Set(text.split(/\s+/).filter(word => word !== '' && word !== '\\' && word !== '#'));
}

function terminal(columns: number): MemoryStream {
	return Object.assign(memoryStream(), {isTTY: true, columns});
}

describe('help text', () => {
	it.each([40, 60, 80, 120])('is one column a character, fits %i columns and breaks no word', async columns => {
		const fixed = await allHelp(undefined);
		for (const [index, text] of (await allHelp(columns)).entries()) {
			expectSingleWidth(text);
			expectFits(text, columns);
			const words = wordsOf(text);
			expect([...wordsOf(fixed[index] ?? '')].filter(word => !words.has(word))).toEqual([]);
		}
	});

	it('uses a wide terminal\'s width', () => {
		const widest = Math.max(...mainHelp(registry, 120).split('\n').map(line => stringWidth(line)));
		expect(widest).toBeGreaterThan(100);
		expect(widest).toBeLessThan(120);
	});

	it('without a terminal keeps 80 columns and its command lines whole', async () => {
		for (const text of await allHelp(undefined)) {
			expectFits(text.split('\n').filter(line => !line.startsWith('    $ ')).join('\n'), 80);
		}

		const serve = (await import('../../source/commands/serve/serve.js')).default;
		expect(commandHelp(serve)).toContain(`    $ ${serve.usage}\n`);
	});

	it('breaks an example between shell words, never inside quotes, ending each broken line with \\', () => {
		expect(commandLine('platform-tui upload --local ./docs "Summarise these documents" --json', 50, true)).toBe([
			'    $ platform-tui upload --local ./docs \\',
			'        "Summarise these documents" --json',
		].join('\n'));
		expect(commandLine('platform-tui local --save-profile local   # then, in another terminal: platform-tui --profile local upload ./docs', 60, true)).toBe([
			'    $ platform-tui local --save-profile local # then, in',
			'        # another terminal: platform-tui --profile local',
			'        # upload ./docs',
		].join('\n'));
		expect(commandLine('platform-tui keys set < key.txt', 40, true)).toBe('    $ platform-tui keys set < key.txt');
	});
});

describe('help on a terminal', () => {
	const asked = [['--help'], [], ['help'], ['help', 'events'], ['events', '--help'], ['keys'], ['help', 'serve'], ['serve', '--help']];

	it.each(asked)('%s is wrapped to the terminal\'s 60 columns', async (...argv: string[]) => {
		const result = await run(argv, {stdout: terminal(60)});
		expect(result.code).toBe(0);
		expectFits(result.stdout, 60);
		expect(result.stdout).toContain('USAGE');
		const fixed = (await run(argv)).stdout;
		expect(result.stdout).not.toBe(fixed);
	});

	it('is the same fixed help on a stream that is no terminal, whatever columns it reports, and with --json', async () => {
		const fixed = await run(['serve', '--help']);
		expect((await run(['serve', '--help'], {stdout: Object.assign(memoryStream(), {columns: 60})})).stdout).toBe(fixed.stdout);
		expect((await run(['serve', '--help', '--json'], {stdout: terminal(60)})).stdout).toBe((await run(['serve', '--help', '--json'])).stdout);
	});
});
