/** Words a value of an unexpected type or shape for an error message. */
import {cutCodePoints} from './text.js';

/** The longest part of a string quoted, in code points; a longer string is cut and ends with `…`. */
const quotedLength = 40;

/**
 * `missing`, `null`, `an empty string`, a string quoted as JSON (control characters escaped, cut
 * after 40 code points), `an empty list`, `a list`, `an object`, else `a number`, `a boolean`, … by its type.
 */
export function describeValue(value: unknown): string {
	if (value === undefined) {
		return 'missing';
	}

	if (value === null) {
		return 'null';
	}

	if (typeof value === 'string') {
		if (value === '') {
			return 'an empty string';
		}

		const cut = cutCodePoints(value, quotedLength);
		return JSON.stringify(cut === value ? value : `${cut}…`);
	}

	if (Array.isArray(value)) {
		return value.length === 0 ? 'an empty list' : 'a list';
	}

	return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
