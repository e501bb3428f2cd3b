/**
 * Text helpers: plurals, and limits counted in code points (never splitting a surrogate pair) for
 * what is stored or sent. What a terminal shows is measured in display columns: see width.ts.
 */

/** `1 document`, `2 documents`; an irregular plural is passed as `plural`. */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
	return `${count} ${count === 1 ? singular : pluralForm}`;
}

/** The first `count` code points of `text`. */
export function cutCodePoints(text: string, count: number): string {
	if (text.length <= count) {
		return text;
	}

	let out = '';
	let taken = 0;
	for (const character of text) {
		if (taken === count) {
			break;
		}

		out += character;
		taken++;
	}

	return out;
}

/** How many code points `text` holds. */
export function codePointLength(text: string): number {
	let count = 0;
	for (let index = 0; index < text.length; index++) {
		const unit = text.charCodeAt(index);
		// A high surrogate followed by a low one is one code point.
		if (unit >= 0xD8_00 && unit <= 0xDB_FF && index + 1 < text.length) {
			const next = text.charCodeAt(index + 1);
			if (next >= 0xDC_00 && next <= 0xDF_FF) {
				index++;
			}
		}

		count++;
	}

	return count;
}

/** The text on one line: each run of white space a single space, none at either end. */
export function foldWhiteSpace(text: string): string {
	return text.replace(/\s+/g, ' ').trim();
}

/** A run of white space that holds a line break or a tab. */
const breaking = /\s*[\n\r\t\v\f\u2028\u2029]\s*/g;

/**
 * The text on one line: each run of white space holding a line break or a tab becomes one space
 * (none at either end); runs of spaces stay as they are (`file with  spaces.txt` keeps both).
 */
export function singleLine(text: string): string {
	return text.replaceAll(breaking, (run, offset: number) => (offset === 0 || offset + run.length === text.length ? '' : ' '));
}

/**
 * `text` on one line (singleLine) and at most `max` code points, ending with `…` when cut: a limit
 * for plain log lines, not a layout (what a screen lays out is cut in display columns, width.ts).
 */
export function shortText(text: string, max: number): string {
	const flat = singleLine(text);
	return codePointLength(flat) <= max ? flat : `${cutCodePoints(flat, Math.max(1, max - 1))}…`;
}
