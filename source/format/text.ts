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
	for (const _character of text) {
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
