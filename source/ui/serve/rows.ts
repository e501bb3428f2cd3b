/** A log row as one terminal line: cut to the width, coloured when asked (pure). */
import {cutKeepingIds} from '../../format/ids.js';
import {foldWhiteSpace} from '../../format/text.js';
import {displayWidth, oneLine, singleLine} from '../../format/width.js';
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

/** The status column: the HTTP status, or `---` for a job no request started here (a resume). */
export function statusText(row: Pick<LogRow, 'status'>): string {
	return row.status === undefined ? '---' : String(row.status);
}

/**
 * The parts of a row fitting `width` columns on one line (stripe listen's habit): time, status,
 * type, chat, the user's text (cut to 40), then the detail. The detail keeps at least
 * `minimumDetail` columns (a live row's step is short and always shows in full); the text goes
 * first when space is short, then the chat, then the type is cut. The full detail is in the
 * selected row's details.
 */
export function rowParts(row: LogRow, width: number, options: {reserved?: number; minimumDetail?: number} = {}): RowParts {
	const status = statusText(row);
	const fixed = displayWidth(row.time) + 2 + displayWidth(status) + (options.reserved ?? 0);
	const detail = singleLine(row.detail);
	const detailFloor = Math.min(displayWidth(detail), options.minimumDetail ?? 24);
	// Columns for '  type  chat  "text"' and the two spaces before the detail.
	let room = width - fixed - detailFloor - 2;
	let head = `  ${row.label}`;
	if (displayWidth(head) > room) {
		head = `  ${oneLine(row.label, Math.max(4, room - 2))}`;
	}

	room -= displayWidth(head);
	if (row.chatId && displayWidth(row.chatId) + 2 <= room) {
		head += `  ${row.chatId}`;
		room -= displayWidth(row.chatId) + 2;
	}

	// The user's text gets what is left, up to 40 characters, and is dropped below 8.
	const textRoom = Math.min(40, room - 4);
	const quoted = row.text === undefined || textRoom < 8 ? '' : `  ${JSON.stringify(oneLine(row.text, textRoom))}`;
	const middle = `${head}${quoted}  `;
	const detailRoom = Math.max(8, width - fixed - displayWidth(middle));
	return {time: row.time, status, middle, detail: cutKeepingIds(detail, detailRoom)};
}

/** A finished row as one line of text (finished rows are written in batches inside <Static>). */
export function rowLine(row: LogRow, color: boolean, width: number): string {
	const parts = rowParts(row, width);
	return `${paint(parts.time, 'dim', color)}  ${paint(parts.status, row.status === undefined ? 'dim' : statusColor(row.status), color)}${parts.middle}${paint(parts.detail, toneColor[row.tone], color)}`;
}

/**
 * The selection bar under the log: the selected event named by its whole id, time, type and
 * state, not a second copy of its row (the row itself is in the log above). What does not fit
 * `width` goes, the type first, then the time; the id is never cut.
 */
export function selectionText(row: LogRow, width: number): string {
	const state = row.stage ?? foldWhiteSpace(row.detail).split(/[\s:]/)[0] ?? '';
	const id = row.eventId ?? row.label;
	const variants = [[id, row.time, row.label, state], [id, row.time, state], [id, state], [id]].map(parts => parts.filter(part => part !== '').join(' · '));
	return variants.find(variant => displayWidth(variant) <= width) ?? id;
}
