/**
 * Ids are never cut: a cut id cannot be typed back. The one implementation of that rule for every
 * layout, measured in display columns (width.ts): a line of text is cut before an id rather than
 * inside it (`cutKeepingIds`), text is wrapped between words and an id never split across lines
 * (`wrapKeepingIds`), and columns are fitted to a width with the id columns whole, shown or left
 * out (`fitColumns`: the tables of `events list` and `config list`, the inspector, upload's rows).
 */
import {displayWidth, singleLine, sliceToWidth, splitToWidth} from './width.js';

/** An id as the platform writes them: a lower-case prefix, `_`, then letters and digits (evt_…, chat_…, cont_…). */
const idPattern = /\b[a-z]+_[A-Za-z\d]{8,}/g;

/** An id at the end of a text. */
const endingId = /\b[a-z]+_[A-Za-z\d]{8,}$/;

/**
 * `text` on one line cut to `width` columns with `…`; a cut never falls inside an id, nor right
 * after one (`…` against an id reads as a cut id): the text is cut before the id, left out whole.
 */
export function cutKeepingIds(text: string, width: number): string {
	const flat = singleLine(text);
	if (displayWidth(flat) <= width) {
		return flat;
	}

	let keep = Math.max(1, width - 1);
	for (const match of flat.matchAll(idPattern)) {
		const start = displayWidth(flat.slice(0, match.index));
		if (start < keep && keep < start + displayWidth(match[0])) {
			keep = start;
			break;
		}
	}

	const cut = sliceToWidth(flat, keep).trimEnd();
	// An id right before the `…` would read as a cut one: the text ends before it.
	const last = endingId.exec(cut);
	return `${last ? cut.slice(0, last.index).trimEnd() : cut}…`;
}

/** Columns of text a kept indentation leaves at the least. */
const minimumText = 10;

/**
 * `text` wrapped to lines of at most `width` columns, each line of it on its own: lines break
 * between words, runs of spaces inside a line stay, and a line's indentation is kept on the lines
 * it wraps into. A word wider than a line is split, unless it holds an id: an id is never split
 * across lines (it gets a line of its own, whole).
 */
export function wrapKeepingIds(text: string, width: number): string[] {
	const columns = Math.max(1, Math.floor(width));
	return text.replaceAll('\r\n', '\n').split('\n').flatMap(line => wrapLine(line.replaceAll('\t', '    '), columns));
}

function wrapLine(line: string, width: number): string[] {
	const indent = /^ */.exec(line)?.[0] ?? '';
	const body = line.slice(indent.length);
	if (displayWidth(line) <= width || body === '') {
		return [line];
	}

	const kept = indent.slice(0, Math.max(0, width - minimumText));
	const lines: string[] = [];
	let current = indent;
	let started = false;
	// Words and the runs of spaces between them, in turn.
	const parts = body.split(/( +)/);
	for (let index = 0; index < parts.length; index += 2) {
		const word = parts[index] ?? '';
		const space = index === 0 ? '' : (parts[index - 1] ?? '');
		if (!started || displayWidth(current + space + word) <= width) {
			current += space + word;
			started = true;
		} else {
			lines.push(current);
			current = kept + word;
		}

		// A word wider than a line is split, never inside an id.
		if (displayWidth(current) > width) {
			const pieces = splitKeepingIds(current, width);
			lines.push(...pieces.slice(0, -1));
			current = pieces.at(-1) ?? '';
		}
	}

	lines.push(current.trimEnd());
	return lines.map(each => each.trimEnd());
}

/**
 * `text` (no line breaks) in pieces of at most `width` columns, split anywhere but inside an id: an
 * id starts a piece of its own when it does not fit on the current one (wider than `width`, it is
 * a piece alone).
 */
function splitKeepingIds(text: string, width: number): string[] {
	const pieces: string[] = [];
	let current = '';
	let from = 0;
	const add = (part: string, isId: boolean) => {
		if (isId) {
			if (current !== '' && displayWidth(current + part) > width) {
				pieces.push(current);
				current = '';
			}

			current += part;
			return;
		}

		const room = width - displayWidth(current);
		if (displayWidth(part) <= room) {
			current += part;
			return;
		}

		// What fits beside the piece so far, then pieces of the rest.
		const head = sliceToWidth(part, Math.max(0, room));
		pieces.push(current + head);
		const split = splitToWidth(part.slice(head.length), width);
		pieces.push(...split.slice(0, -1));
		current = split.at(-1) ?? '';
	};

	for (const match of text.matchAll(idPattern)) {
		add(text.slice(from, match.index), false);
		add(match[0], true);
		from = match.index + match[0].length;
	}

	add(text.slice(from), false);
	return [...pieces, current].filter((piece, index, all) => piece !== '' || all.length === 1);
}

/** How columns fit a width, beyond cutting the widest ones. */
export type ColumnFit = {
	/** Columns never cut (ids): shown whole, or left out through `dropOrder`. */
	whole?: readonly number[];
	/** The narrowest a column is cut to (default 4). */
	minimum?: Readonly<Record<number, number>>;
	/** Columns left out, in this order, when cutting the others to their minimum is not enough. */
	dropOrder?: readonly number[];
	/**
	 * Columns cut only when the others, cut to their minimum and with every column of `dropOrder`
	 * left out, still do not fit: in this order, each to its minimum before the next is cut (a
	 * setting's value, which the table is for).
	 */
	cutLast?: readonly number[];
	/** Columns between two columns (default 2). */
	gap?: number;
};

/** What `fitColumns` decided: the columns kept, their widths, and whether the shorter forms are used. */
export type FittedColumns = {columns: number[]; widths: number[]; shorter: boolean};

/** No column is cut narrower than this unless told. */
const minimumWidth = 4;

/** The widths after cutting the widest cuttable ones until the total fits `width`; undefined when it cannot. */
function cutWidths(natural: readonly number[], width: number, cuttable: (index: number) => number | undefined, gap: number): number[] | undefined {
	const widths = [...natural];
	let excess = widths.reduce((sum, each) => sum + each, 0) + (gap * Math.max(0, widths.length - 1)) - width;
	// Bounded: each round narrows one column by one column, and stops at its minimum.
	while (excess > 0) {
		const room = widths.map((each, index) => {
			const minimum = cuttable(index);
			return minimum === undefined || each <= minimum ? -1 : each;
		});
		const widest = room.indexOf(Math.max(...room));
		if ((room[widest] ?? -1) < 0) {
			return undefined;
		}

		widths[widest] = (widths[widest] ?? 0) - 1;
		excess--;
	}

	return widths;
}

/**
 * The widths once the columns of `order` (indexes into `widths`) are cut, one after the other, each
 * to its minimum before the next; undefined when that is not enough.
 */
function cutInOrder(widths: readonly number[], order: readonly number[], minimum: (index: number) => number, width: number, gap: number): number[] | undefined {
	const cut = [...widths];
	let excess = cut.reduce((sum, each) => sum + each, 0) + (gap * Math.max(0, cut.length - 1)) - width;
	for (const index of order) {
		const give = Math.min(Math.max(0, excess), Math.max(0, (cut[index] ?? 0) - minimum(index)));
		cut[index] = (cut[index] ?? 0) - give;
		excess -= give;
	}

	return excess <= 0 ? cut : undefined;
}

/**
 * Fits columns of `natural` widths (display columns) into `width`: all of them as they are when
 * they fit; otherwise with their `shorter` widths (a timestamp's time only), the widest cut first
 * (never a `whole` one, none below its minimum, a `cutLast` one not yet); then with fewer columns,
 * left out in `dropOrder`; then with the `cutLast` columns cut in their order. When nothing fits,
 * the last try with its natural widths.
 */
export function fitColumns(natural: readonly number[], width: number, fit: ColumnFit = {}, shorter: readonly number[] = natural): FittedColumns {
	const whole = new Set(fit.whole ?? []);
	const last = fit.cutLast ?? [];
	const gap = fit.gap ?? 2;
	const drops = [...(fit.dropOrder ?? [])];
	let columns = natural.map((_, index) => index);
	// Bounded: each round leaves one column out.
	for (;;) {
		const full = columns.map(column => natural[column] ?? 0);
		if (full.reduce((sum, each) => sum + each, 0) + (gap * Math.max(0, full.length - 1)) <= width) {
			return {columns, widths: full, shorter: false};
		}

		const short = columns.map(column => shorter[column] ?? 0);
		const kept = columns;
		const minimum = (index: number) => Math.min(fit.minimum?.[kept[index] ?? 0] ?? minimumWidth, short[index] ?? 0);
		const widths = cutWidths(short, width, index => {
			const column = kept[index] ?? 0;
			return whole.has(column) || last.includes(column) ? undefined : minimum(index);
		}, gap);
		const next = drops.shift();
		if (widths) {
			return {columns, widths, shorter: true};
		}

		if (next === undefined) {
			// Every other column at its minimum, then the cutLast ones in their order.
			const floor = short.map((each, index) => whole.has(kept[index] ?? 0) || last.includes(kept[index] ?? 0) ? each : minimum(index));
			const order = last.map(column => kept.indexOf(column)).filter(index => index >= 0);
			return {columns, widths: cutInOrder(floor, order, minimum, width, gap) ?? short, shorter: true};
		}

		columns = columns.filter(column => column !== next);
	}
}
