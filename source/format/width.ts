/**
 * The one display-width rule of every layout: text is measured in the columns a terminal shows
 * (string-width: a CJK character takes 2, a combining accent 0, an emoji 2), cut between whole
 * characters as the eye sees them (grapheme clusters, so `e` and its accent stay together) and
 * padded to a width in columns. Runs of spaces are shown as they are; only line breaks and tabs
 * become a space, so a line stays one line.
 */
import stringWidth from 'string-width';
import {singleLine} from './text.js';

export {singleLine} from './text.js';

/** Columns `text` takes on a terminal. */
export function displayWidth(text: string): number {
	return stringWidth(text);
}

const segmenter = new Intl.Segmenter();

/** The characters of `text` as a terminal draws them (grapheme clusters), each with its width, one at a time. */
function * graphemes(text: string): Generator<{text: string; width: number}> {
	for (const {segment} of segmenter.segment(text)) {
		yield {text: segment, width: stringWidth(segment)};
	}
}

/** The longest start of `text` no wider than `width` columns (a wide character that would pass it is left out). */
export function sliceToWidth(text: string, width: number): string {
	let out = '';
	let used = 0;
	for (const character of graphemes(text)) {
		if (used + character.width > width) {
			break;
		}

		out += character.text;
		used += character.width;
	}

	return out;
}

/** The longest end of `text` no wider than `width` columns. */
export function sliceEndToWidth(text: string, width: number): string {
	const characters = [...graphemes(text)];
	let used = 0;
	let start = characters.length;
	while (start > 0 && used + (characters[start - 1]?.width ?? 0) <= width) {
		start--;
		used += characters[start]?.width ?? 0;
	}

	return characters.slice(start).map(character => character.text).join('');
}

/** `text` cut to at most `width` columns, ending with `…` when cut. */
export function cutToWidth(text: string, width: number): string {
	if (stringWidth(text) <= width) {
		return text;
	}

	return width <= 0 ? '' : `${sliceToWidth(text, width - 1)}…`;
}

/** `text` with spaces after it up to `width` columns (never cut). */
export function padEndToWidth(text: string, width: number): string {
	return text + ' '.repeat(Math.max(0, width - stringWidth(text)));
}

/** `text` with spaces before it up to `width` columns (never cut). */
export function padStartToWidth(text: string, width: number): string {
	return ' '.repeat(Math.max(0, width - stringWidth(text))) + text;
}

/** `text` on one line (see singleLine) cut to `width` columns with `…`. */
export function oneLine(text: string, width: number): string {
	return cutToWidth(singleLine(text), Math.max(1, width));
}

/** `text` split into pieces of at most `width` columns each, between characters (a last resort for a word wider than a line). */
export function splitToWidth(text: string, width: number): string[] {
	const pieces: string[] = [];
	let piece = '';
	let used = 0;
	for (const character of graphemes(text)) {
		if (used + character.width > width && piece !== '') {
			pieces.push(piece);
			piece = '';
			used = 0;
		}

		piece += character.text;
		used += character.width;
	}

	return piece === '' && pieces.length > 0 ? pieces : [...pieces, piece];
}
