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

/** Folds white space to single spaces and cuts to `max` code points, ending with `…` when cut. */
export function oneLine(text: string, max: number): string {
	const flat = text.replace(/\s+/g, ' ').trim();
	const count = codePointLength(flat);
	return count <= max ? flat : `${cutCodePoints(flat, Math.max(1, max - 1))}…`;
}
