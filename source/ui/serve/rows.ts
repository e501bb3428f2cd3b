/** A log row as one terminal line: cut to the width, coloured when asked (pure). */
import {oneLine} from '../../format/text.js';
import type {LogRow} from './state.js';

const sgr: Record<string, [number, number]> = {
	dim: [2, 22],
	red: [31, 39],
	green: [32, 39],
	yellow: [33, 39],
	cyan: [36, 39],
};

export const toneColor: Record<LogRow['tone'], string | undefined> = {
	ok: 'green',
	warn: 'yellow',
	error: 'red',
	info: 'cyan',
	live: undefined,
};

export function statusColor(status: number): string {
	if (status >= 200 && status < 300) {
		return 'green';
	}

	return status >= 500 ? 'yellow' : 'red';
}

export function paint(text: string, style: string | undefined, color: boolean): string {
	const codes = style ? sgr[style] : undefined;
	return color && codes ? `\u001B[${codes[0]}m${text}\u001B[${codes[1]}m` : text;
}

export type RowParts = {time: string; status: string; middle: string; detail: string};

/** Columns a row may use: the terminal's (a row never wraps), never below 40. */
export function rowWidth(columns: number | undefined): number {
	return Math.max(40, columns ?? 100);
}

/**
 * The parts of a row fitting `width` columns on one line (stripe listen's habit): time, status,
 * type, chat, the user's text (cut to 40, dropped when space is short), then the detail cut to what
 * is left. The full detail is in the selected row's details.
 */
export function rowParts(row: LogRow, width: number, options: {reserved?: number; minimumDetail?: number} = {}): RowParts {
	const fixed = row.time.length + 2 + String(row.status).length + (options.reserved ?? 0);
	const head = `  ${row.label}${row.chatId ? `  ${row.chatId}` : ''}`;
	const minimumDetail = options.minimumDetail ?? 24;
	// The user's text gets what is left after the detail's minimum, up to 40 characters.
	const textRoom = Math.min(40, width - fixed - head.length - 4 - 2 - minimumDetail);
	const quoted = row.text === undefined || textRoom < 8 ? '' : `  ${JSON.stringify(oneLine(row.text, textRoom))}`;
	const middle = `${head}${quoted}  `;
	const room = Math.max(8, width - fixed - Array.from(middle).length);
	return {time: row.time, status: String(row.status), middle, detail: oneLine(row.detail, room)};
}

/** A finished row as one line of text (finished rows are written in batches inside <Static>). */
export function rowLine(row: LogRow, color: boolean, width: number): string {
	const parts = rowParts(row, width);
	return `${paint(parts.time, 'dim', color)}  ${paint(parts.status, statusColor(row.status), color)}${parts.middle}${paint(parts.detail, toneColor[row.tone], color)}`;
}
