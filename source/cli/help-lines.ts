/**
 * The command lines of help (USAGE and EXAMPLES) laid out for a terminal. Without one (`columns`
 * undefined) a line stays whole, as it is written; on a terminal a line wider than the window
 * breaks between its words, never inside brackets or quotes, and its next lines hang under it.
 * An example, which is meant to be pasted, ends each broken line with ` \`; a comment in it goes on
 * with `# `. Help's characters are one column each (help.ts), so code points are columns.
 */
import {codePointLength as columnsOf} from '../format/text.js';

const lead = '    $ ';
const hang = ' '.repeat(8);

/** Which words open and close a group that is not broken: `[…]`, `(…)`, `<…>` (not the redirect `< file`). */
function depthChange(character: string, next: string | undefined): number {
	if ('[({'.includes(character) || (character === '<' && next !== undefined && next !== ' ')) {
		return 1;
	}

	return ']>)}'.includes(character) ? -1 : 0;
}

/** The words of a command line: split at spaces outside quotes and brackets. */
export function commandWords(text: string): string[] {
	const words: string[] = [];
	let word = '';
	let depth = 0;
	let quote = '';
	const characters = Array.from(text);
	for (const [index, character] of characters.entries()) {
		if (quote !== '') {
			quote = character === quote ? '' : quote;
		} else if (character === '"' || character === '\'') {
			quote = character;
		} else if (character === ' ' && depth === 0) {
			words.push(...(word === '' ? [] : [word]));
			word = '';
			continue;
		} else {
			depth = Math.max(0, depth + depthChange(character, characters[index + 1]));
		}

		word += character;
	}

	return word === '' ? words : [...words, word];
}

/**
 * `    $ <text>`, broken to `columns` (the last column left free, as for the rest of help) when it
 * is wider; `example` marks a line to paste (see above).
 */
export function commandLine(text: string, columns: number | undefined, example: boolean): string {
	if (columns === undefined || columnsOf(lead) + columnsOf(text) < columns) {
		return `${lead}${text}`;
	}

	const tail = example ? 2 : 0;
	const room = columns - 1 - hang.length - tail;
	// A group of a usage wider than a whole line breaks between its own words; an example's word
	// (a quoted argument) stays whole.
	const words = commandWords(text).flatMap(word => !example && columnsOf(word) > room ? word.split(' ') : [word]);
	const lines: string[] = [];
	let prefix = lead;
	let line = '';
	let comment = false;
	for (const word of words) {
		const reserved = example && !comment ? tail : 0;
		if (line !== '' && columnsOf(prefix) + columnsOf(line) + 1 + columnsOf(word) + reserved > columns - 1) {
			lines.push(`${prefix}${line}${example && !comment ? ' \\' : ''}`);
			prefix = comment ? `${hang}# ` : hang;
			line = word;
		} else {
			line = line === '' ? word : `${line} ${word}`;
		}

		comment ||= example && word.startsWith('#');
	}

	return [...lines, `${prefix}${line}`].join('\n');
}
