/**
 * The one table layout of the CLI (`events list`, `config list`). On a terminal the columns are
 * padded to their widest cell and the table fits the width: the widest column is cut with `…`
 * until it does; a table may keep some columns whole (ids), shorten others first (a time only
 * for a timestamp) and drop columns in an order when cutting is not enough (TableFit). Piped, every row is its cells joined by tabs, never cut and without the heading
 * row, so `cut -f2` and `awk -F'\t'` read it (gh's rule).
 */
import cliTruncate from 'cli-truncate';
import stringWidth from 'string-width';

const gap = 2;
/** No column is cut narrower than this. */
const minimumWidth = 4;

/** How a table fits a narrow terminal, beyond cutting its widest columns. */
export type TableFit = {
	/** Columns never cut (ids: a cut id cannot be typed back); others shrink, then drop. */
	whole?: readonly number[];
	/** Columns dropped, in this order, when cutting the others to their minimum is not enough. */
	dropOrder?: readonly number[];
	/** A shorter form of a column's cells, used before anything is cut (a timestamp's time only). */
	shorter?: Readonly<Record<number, (cell: string) => string>>;
};

const total = (widths: readonly number[]) => widths.reduce((sum, each) => sum + each, 0) + gap * Math.max(0, widths.length - 1);

/** The column widths after cutting the widest ones (except `whole`) until the row fits `width`; undefined when it cannot. */
function fitWidths(natural: readonly number[], width: number, whole: ReadonlySet<number>): number[] | undefined {
	const widths = [...natural];
	let excess = total(widths) - width;
	// Bounded: each round narrows one column by one character, and stops at the minimum.
	while (excess > 0) {
		const cuttable = widths.map((each, index) => (whole.has(index) || each <= minimumWidth ? -1 : each));
		const widest = cuttable.indexOf(Math.max(...cuttable));
		if ((cuttable[widest] ?? -1) < 0) {
			return undefined;
		}

		widths[widest] = (widths[widest] ?? 0) - 1;
		excess--;
	}

	return widths;
}

function padCell(cell: string, width: number): string {
	const cut = stringWidth(cell) > width ? cliTruncate(cell, width, {position: 'end'}) : cell;
	return cut + ' '.repeat(Math.max(0, width - stringWidth(cut)));
}

type Layout = {columns: number[]; rows: string[][]; widths: number[]};

/** The columns kept and their widths: whole, shortened, cut, then fewer (`fit`); the last try when nothing fits. */
function layout(heading: readonly string[], rows: ReadonlyArray<readonly string[]>, width: number, fit: TableFit): Layout {
	const whole = new Set(fit.whole ?? []);
	const natural = (cells: ReadonlyArray<readonly string[]>, columns: readonly number[]) => columns.map(column => Math.max(stringWidth(heading[column] ?? ''), ...cells.map(row => stringWidth(row[column] ?? ''))));
	const shortened = rows.map(row => row.map((cell, column) => fit.shorter?.[column]?.(cell) ?? cell));
	let columns = heading.map((_, index) => index);
	const drops = [...(fit.dropOrder ?? [])];
	// Bounded: each round drops one column.
	for (;;) {
		const pick = (cells: ReadonlyArray<readonly string[]>) => cells.map(row => columns.map(column => row[column] ?? ''));
		const full = natural(rows, columns);
		if (total(full) <= width) {
			return {columns, rows: pick(rows), widths: full};
		}

		const cells = pick(shortened);
		const widths = fitWidths(natural(shortened, columns), width, new Set(columns.flatMap((column, index) => (whole.has(column) ? [index] : []))));
		const next = drops.shift();
		if (widths || next === undefined) {
			return {columns, rows: cells, widths: widths ?? natural(shortened, columns)};
		}

		columns = columns.filter(column => column !== next);
	}
}

/**
 * The table's lines. `width` is the terminal's width; undefined when stdout is not a terminal,
 * which gives tab-separated rows without the heading.
 */
export function formatTable(heading: readonly string[], rows: ReadonlyArray<readonly string[]>, width: number | undefined, fit: TableFit = {}): string[] {
	if (width === undefined) {
		return rows.map(row => row.map(cell => cell.replaceAll(/[\t\n]/g, ' ')).join('\t'));
	}

	const fitted = layout(heading, rows, width, fit);
	const line = (cells: readonly string[]) => cells.map((cell, index) => padCell(cell, fitted.widths[index] ?? 0)).join(' '.repeat(gap)).trimEnd();
	return [line(fitted.columns.map(column => heading[column] ?? '')), ...fitted.rows.map(row => line(row))];
}

/** The width a table may use on this stream: its columns on a terminal, else undefined (piped). */
export function tableWidth(stream: {isTTY?: boolean; columns?: number}): number | undefined {
	return stream.isTTY ? (stream.columns && stream.columns > 0 ? stream.columns : 80) : undefined;
}
