/**
 * The one table layout of the CLI (`events list`, `config list`). On a terminal the columns are
 * padded to their widest cell and the table fits the width: the widest column is cut with `…`
 * until it does; a table may keep some columns whole (ids), shorten others first (a time only
 * for a timestamp), drop columns in an order when cutting is not enough, and cut some columns
 * only after that, in their own way (`config list`'s values: start and end kept) (TableFit, fitted
 * by ids.ts: the one rule that keeps ids whole). Cells are measured in display columns. Piped, every
 * row is its cells joined by tabs, never cut and without the heading row, so `cut -f2` and `awk -F'\t'` read it (gh's rule).
 */
import {cutKeepingIds, fitColumns, type ColumnFit} from './ids.js';
import {terminalColumns} from '../terminal.js';
import {singleLine} from './text.js';
import {displayWidth, padEndToWidth} from './width.js';

const gap = 2;

/** How a table fits a narrow terminal, beyond cutting its widest columns. */
export type TableFit = Omit<ColumnFit, 'gap'> & {
	/** A shorter form of a column's cells, used before anything is cut (a time only for a timestamp). */
	shorter?: Readonly<Record<number, (cell: string) => string>>;
	/** How a column's cells are cut, when not as text (never inside an id): a value keeps its start and end. */
	cut?: Readonly<Record<number, (cell: string, width: number) => string>>;
};

/** A cell cut to `width` display columns (never inside an id, or as its column says) and padded to it. */
function padCell(cell: string, width: number, cut: (cell: string, width: number) => string = cutKeepingIds): string {
	return padEndToWidth(cut(singleLine(cell), width), width);
}

type Layout = {columns: number[]; rows: string[][]; widths: number[]};

/** The columns kept and their widths (see fitColumns): whole, shortened, cut, then fewer. */
function layout(heading: readonly string[], rows: ReadonlyArray<readonly string[]>, width: number, fit: TableFit): Layout {
	const shortened = rows.map(row => row.map((cell, column) => fit.shorter?.[column]?.(cell) ?? cell));
	const natural = (cells: ReadonlyArray<readonly string[]>) => heading.map((title, column) => Math.max(displayWidth(title), ...cells.map(row => displayWidth(row[column] ?? ''))));
	const fitted = fitColumns(natural(rows), width, {...fit, gap}, natural(shortened));
	const pick = (cells: ReadonlyArray<readonly string[]>) => cells.map(row => fitted.columns.map(column => row[column] ?? ''));
	return {columns: fitted.columns, rows: pick(fitted.shorter ? shortened : rows), widths: fitted.widths};
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
	const line = (cells: readonly string[], cut: TableFit['cut'] = {}) => cells.map((cell, index) => padCell(cell, fitted.widths[index] ?? 0, cut[fitted.columns[index] ?? 0])).join(' '.repeat(gap)).trimEnd();
	return [line(fitted.columns.map(column => heading[column] ?? '')), ...fitted.rows.map(row => line(row, fit.cut))];
}

/** The width a table may use on this stream: its columns on a terminal, else undefined (piped). */
export function tableWidth(stream: {isTTY?: boolean; columns?: number}): number | undefined {
	return stream.isTTY ? terminalColumns(stream) : undefined;
}
