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

/**
 * Columns `text` takes on a terminal. A long text without escape sequences is measured a
 * character at a time (see graphemes): the segmenter string-width runs over a whole text slows
 * down faster than the text grows (64 000 Chinese characters took 0.3 s, 16 000 took 0.05 s).
 */
export function displayWidth(text: string): number {
	if (text.length <= 256 || /^[\u0020-\u007E]*$/.test(text) || text.includes('\u001B') || text.includes('\u009B')) {
		return stringWidth(text);
	}

	let width = 0;
	for (const character of graphemes(text)) {
		width += character.width;
	}

	return width;
}

const segmenter = new Intl.Segmenter();

/** A character that can start a cluster (Grapheme_Base)… */
const base = /^\p{Grapheme_Base}$/u;
/** …unless it is Hangul jamo, a prepended mark or half of a surrogate pair. */
const notAlone = /[\u1100-\u11FF\uA960-\uA97F\uD7B0-\uD7FF\u0600-\u0605\u06DD\u070F\u0890\u0891\u08E2\uD800-\uDFFF]/;
/** A character that may join the one before it in a cluster (marks, joiners, selectors, jamo, surrogates: emoji modifiers and tags). */
const joining = /[\p{Grapheme_Extend}\p{M}\u1100-\u11FF\uA960-\uA97F\uD7B0-\uD7FF\uD800-\uDFFF]|\u200D/u;

/** Widths of single characters seen, so a long text in one script measures each of its characters once. */
const widths = new Map<string, number>();

function widthOf(character: string): number {
	let width = widths.get(character);
	if (width === undefined) {
		width = stringWidth(character);
		if (widths.size < 4096) {
			widths.set(character, width);
		}
	}

	return width;
}

/**
 * The characters of `text` as a terminal draws them (grapheme clusters), each with its width, one
 * at a time. A character that stands alone and is not followed by one that joins it is a cluster
 * of its own, taken without the segmenter (which costs some 13 µs a step); the segmenter reads the
 * rest, a few code units at a time.
 */
function * graphemes(text: string): Generator<{text: string; width: number}> {
	let index = 0;
	while (index < text.length) {
		const character = text[index] ?? '';
		const next = text[index + 1] ?? '';
		const code = text.charCodeAt(index);
		const ascii = code >= 0x20 && code < 0x7F;
		if ((ascii || (base.test(character) && !notAlone.test(character))) && (next === '' || next.charCodeAt(0) < 0x7F || !joining.test(next))) {
			yield {text: character, width: ascii ? 1 : widthOf(character)};
			index++;
			continue;
		}

		// A cluster is seldom longer than 32 code units (the longest emoji sequences are shorter).
		const first = segmenter.segment(text.slice(index, index + 32))[Symbol.iterator]().next();
		const segment = first.done ? character : first.value.segment;
		yield {text: segment, width: stringWidth(segment)};
		index += segment.length;
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

/**
 * `text` cut to at most `width` columns in its middle, keeping its start and its end around `…`
 * (`cmp_2f9c1e…e2f4a6c`): what is left still tells one value from another.
 */
export function cutMiddle(text: string, width: number): string {
	if (stringWidth(text) <= width) {
		return text;
	}

	if (width <= 1) {
		return width === 1 ? '…' : '';
	}

	const start = sliceToWidth(text, Math.ceil((width - 1) / 2));
	return `${start}…${sliceEndToWidth(text, width - 1 - stringWidth(start))}`;
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
