/**
 * Word wrap for text printed once (replies, history): Ink wraps without trimming, so a line that
 * fills its width exactly pushes the space after it to the start of the next line. This wraps
 * each line of the text on its own, with no space left at either end of a wrapped row, and keeps
 * a line's indentation on the rows it wraps into (a hanging indent for lists and code) as long as
 * it leaves room for text.
 */
import wrapAnsi from 'wrap-ansi';

/** Columns of text a kept indentation leaves at the least; a deeper one is cut to this. */
const minimumText = 10;

/** Tabs as the terminal shows them: to the next multiple of 8 columns (counted in code points). */
function expandTabs(line: string): string {
	let column = 0;
	let out = '';
	for (const character of line) {
		if (character === '\t') {
			const spaces = 8 - (column % 8);
			out += ' '.repeat(spaces);
			column += spaces;
		} else {
			out += character;
			column++;
		}
	}

	return out;
}

/** `text` wrapped to `width` columns (at least 1); explicit line breaks stay. */
export function wrapParagraphs(text: string, width: number): string {
	const columns = Math.max(1, Math.floor(width));
	return text.replaceAll('\r\n', '\n').split('\n').map(raw => {
		const line = raw.includes('\t') ? expandTabs(raw) : raw;
		const indent = /^ */.exec(line)?.[0] ?? '';
		const body = line.slice(indent.length);
		if (body === '') {
			return '';
		}

		const kept = indent.slice(0, Math.max(0, columns - minimumText));
		return wrapAnsi(body, columns - kept.length, {hard: true, trim: true}).split('\n').map(row => kept + row).join('\n');
	}).join('\n');
}
