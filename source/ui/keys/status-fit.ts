/**
 * `keys show`'s lines fitted to a terminal's width. A line that fits is left as it is; a wider one
 * wraps between words, its further rows under the value column (a hanging indent), and a time
 * (`2026-11-29 15:41:37 UTC`), a duration (`23 h 58 min`) or a command in backticks stays on one
 * row where the row has room for it. Only a terminal gets this: a pipe gets the lines unwrapped.
 */
import {displayWidth} from '../../format/width.js';
import {wrapParagraphs} from '../wrap.js';
import {labelWidth} from './status-lines.js';

/** Columns the value column keeps at the least; a narrower terminal wraps whole lines. */
const minimumValue = 10;

/** The parts of a value that are read as one: a command, a UTC time, a duration. */
const wholes = /`[^`\n]*`|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC|\d+ (?:d|h|min|s)(?: \d+ (?:d|h|min|s))*/g;
/** Joins the words of a whole while it is wrapped (the wrap breaks at plain spaces only). */
const joiner = '\u00A0';

/** `value` wrapped to `width` columns, each whole kept on one row where it fits. */
function wrapValue(value: string, width: number): string[] {
	const joined = value.includes(joiner) ? value : value.replaceAll(wholes, whole => whole.replaceAll(' ', joiner));
	// A whole cut for want of room leaves its joiner at a row's end or start: no space is kept there.
	return wrapParagraphs(joined, width).split('\n').map(row => (joined === value ? row : row.replaceAll(joiner, ' ').trim()));
}

function fitLine(line: string, columns: number): string[] {
	if (columns - labelWidth < minimumValue) {
		return wrapParagraphs(line, columns).split('\n');
	}

	const label = line.slice(0, labelWidth);
	const rows = wrapValue(line.slice(labelWidth), columns - labelWidth);
	return rows.map((row, index) => `${index === 0 ? label : ' '.repeat(labelWidth)}${row}`);
}

/** The lines of `keys show`, none wider than `columns`. */
export function fitStatusLines(lines: readonly string[], columns: number): string[] {
	return lines.flatMap(line => (displayWidth(line) <= columns ? [line] : fitLine(line, columns)));
}
