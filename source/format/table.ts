/**
 * The one table layout of the CLI (`events list`, `config list`). On a terminal the columns are
 * padded to their widest cell and the table fits the width: the widest column is cut with `…`
 * until it does. Piped, every row is its cells joined by tabs, never cut and without the heading
 * row, so `cut -f2` and `awk -F'\t'` read it (gh's rule).
 */
import cliTruncate from 'cli-truncate';
import stringWidth from 'string-width';

const gap = 2;
/** No column is cut narrower than this. */
const minimumWidth = 4;

/** The column widths after cutting the widest ones until the row fits `width`. */
function fitWidths(natural: readonly number[], width: number): number[] {
	const widths = [...natural];
	let excess = widths.reduce((sum, each) => sum + each, 0) + gap * Math.max(0, widths.length - 1) - width;
	// Bounded: each round narrows one column by one character, and stops at the minimum.
	while (excess > 0) {
		const widest = widths.indexOf(Math.max(...widths));
		if ((widths[widest] ?? 0) <= minimumWidth) {
			break;
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

/**
 * The table's lines. `width` is the terminal's width; undefined when stdout is not a terminal,
 * which gives tab-separated rows without the heading.
 */
export function formatTable(heading: readonly string[], rows: ReadonlyArray<readonly string[]>, width: number | undefined): string[] {
	if (width === undefined) {
		return rows.map(row => row.map(cell => cell.replaceAll(/[\t\n]/g, ' ')).join('\t'));
	}

	const natural = heading.map((title, index) => Math.max(stringWidth(title), ...rows.map(row => stringWidth(row[index] ?? ''))));
	const widths = fitWidths(natural, width);
	const line = (cells: readonly string[]) => cells.map((cell, index) => padCell(cell, widths[index] ?? 0)).join(' '.repeat(gap)).trimEnd();
	return [line(heading), ...rows.map(row => line(row))];
}

/** The width a table may use on this stream: its columns on a terminal, else undefined (piped). */
export function tableWidth(stream: {isTTY?: boolean; columns?: number}): number | undefined {
	return stream.isTTY ? (stream.columns && stream.columns > 0 ? stream.columns : 80) : undefined;
}
