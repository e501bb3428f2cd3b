/** Text helpers: plurals, cutting by code point (never splitting a surrogate pair), one-line cuts. */

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

/** Folds white space to single spaces and cuts to `max` code points, ending with `…` when cut. */
export function oneLine(text: string, max: number): string {
	const flat = foldWhiteSpace(text);
	const count = codePointLength(flat);
	return count <= max ? flat : `${cutCodePoints(flat, Math.max(1, max - 1))}…`;
}

/** An id as the platform writes them: a lower-case prefix, `_`, then letters and digits (evt_…, chat_…, cont_…). */
const idPattern = /\b[a-z]+_[A-Za-z\d]{8,}/g;

/**
 * Like oneLine, but a cut never falls inside an id (a cut id cannot be typed back): when it would,
 * the text is cut before the id, which is left out whole.
 */
export function oneLineKeepingIds(text: string, max: number): string {
	const flat = foldWhiteSpace(text);
	if (codePointLength(flat) <= max) {
		return flat;
	}

	let keep = Math.max(1, max - 1);
	for (const match of flat.matchAll(idPattern)) {
		const start = codePointLength(flat.slice(0, match.index));
		if (start < keep && keep < start + codePointLength(match[0])) {
			keep = start;
			break;
		}
	}

	return `${cutCodePoints(flat, keep).trimEnd()}…`;
}
