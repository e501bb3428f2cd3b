/**
 * What the inspector draws (pure): its keys (one list: the help overlay, the footer and
 * docs/events.md's table come from it), the detail pane's lines with the body's JSON coloured,
 * and the copy of an id through OSC 52.
 */
import type {StoredEvent} from '../../receiver/store/backend.js';
import {formatEventDetail, formatEventTable} from './format.js';
import {cursorPosition, type Window} from './inspector-window.js';
import {wrapKeepingIds} from '../../format/ids.js';
import {displayWidth, padEndToWidth} from '../../format/width.js';
import {selectedMarker} from '../../terminal.js';

export type InspectorMode = 'list' | 'search' | 'filter' | 'detail' | 'help';

export type KeyHelp = {keys: string; does: string; short: string};

/** Every key of the inspector, in the order the help lists them. */
export const inspectorKeys: readonly KeyHelp[] = [
	{keys: '↑/↓ j/k', does: 'move the cursor', short: 'move'},
	{keys: 'PgUp/PgDn', does: 'move a page', short: 'page'},
	{keys: 'g / G', does: 'go to the newest / further down (older)', short: 'newest/older'},
	{keys: 'Enter', does: 'open the detail pane (Enter or Esc closes it)', short: 'detail'},
	{keys: '/', does: 'search type, id, chat id and body text', short: 'search'},
	{keys: 'f', does: 'filter: status=STATUS type=TYPE since=1h until=10m', short: 'filter'},
	{keys: 'Esc', does: 'clear the search and filters (or close what is open)', short: 'clear'},
	{keys: 'r', does: 'replay the event', short: 'replay'},
	{keys: 'e', does: 'edit the body in $VISUAL/$EDITOR, store it as a new event and process it', short: 'edit and replay'},
	{keys: 'y', does: 'copy the id (OSC 52; printed when the terminal shows no sign of it)', short: 'copy id'},
	{keys: 'p', does: 'pause / resume following new events', short: 'pause/resume'},
	{keys: '?', does: 'this help', short: 'help'},
	{keys: 'q', does: 'quit', short: 'quit'},
];

/**
 * The help overlay's lines within `room` lines of `width` columns: a key per line with what it
 * does; when that does not fit, every key with a word or two, packed onto lines.
 */
export function helpLines(width: number, room: number, keys: readonly KeyHelp[] = inspectorKeys): string[] {
	const keyWidth = Math.max(...keys.map(key => displayWidth(key.keys)));
	const full = ['Keys', ...keys.map(key => `  ${padEndToWidth(key.keys, keyWidth)}  ${key.does}`), '', 'Any key closes this help.'];
	if (full.length <= room && full.every(line => displayWidth(line) <= width)) {
		return full;
	}

	const lines: string[] = [];
	let line = '';
	for (const item of keys.map(key => `${key.keys} ${key.short}`)) {
		if (line !== '' && displayWidth(line) + 3 + displayWidth(item) > width) {
			lines.push(line);
			line = '';
		}

		line = line === '' ? item : `${line} · ${item}`;
	}

	lines.push(line, '', 'Any key closes this help.');
	return lines;
}

const ansi = {key: '\u001B[36m', string: '\u001B[32m', number: '\u001B[33m', literal: '\u001B[35m', reset: '\u001B[39m'};

/** One line of indented JSON with its keys, strings, numbers and literals coloured. */
export function colourJsonLine(line: string): string {
	return line.replaceAll(/("(?:[^"\\]|\\.)*")(\s*:)?|\b(true|false|null)\b|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g, (match, text: string | undefined, colon: string | undefined, literal: string | undefined, number: string | undefined) => {
		if (text !== undefined) {
			return colon ? `${ansi.key}${text}${ansi.reset}${colon}` : `${ansi.string}${text}${ansi.reset}`;
		}

		if (literal !== undefined) {
			return `${ansi.literal}${literal}${ansi.reset}`;
		}

		return number === undefined ? match : `${ansi.number}${number}${ansi.reset}`;
	});
}

/**
 * The detail pane: state, headers (signature masked), the body as indented JSON (coloured unless
 * `colour` is false: NO_COLOR or not a terminal), the steps with their times and errors. With a
 * `width`, each line is wrapped to it between words, an id never split (ids.ts).
 */
export function detailLines(event: StoredEvent, colour: boolean, width?: number): string[] {
	let inBody = false;
	return formatEventDetail(event).flatMap(line => {
		if (line === 'Body') {
			inBody = true;
			return [line];
		}

		if (line === '') {
			inBody = false;
		}

		const rows = width === undefined ? [line] : wrapKeepingIds(line, width);
		return colour && inBody ? rows.map(row => colourJsonLine(row)) : rows;
	});
}

/** The OSC 52 sequence that puts `text` on the terminal's clipboard. */
export function osc52(text: string): string {
	return `\u001B]52;c;${Buffer.from(text, 'utf8').toString('base64')}\u0007`;
}

/**
 * Whether the terminal gives a sign that it takes OSC 52 (terminals known to, or tmux/screen set
 * to pass it on). Without one the id is also printed, to copy by hand.
 */
export function clipboardSupported(env: NodeJS.ProcessEnv): boolean {
	const program = env.TERM_PROGRAM ?? '';
	const term = env.TERM ?? '';
	return ['iTerm.app', 'WezTerm', 'vscode', 'ghostty', 'tmux'].includes(program)
		|| /kitty|alacritty|foot|wezterm|ghostty/.test(term)
		|| env.KITTY_WINDOW_ID !== undefined || env.WEZTERM_PANE !== undefined;
}

/** The footer when nothing else is said: the cursor's row (1 the newest) and the main keys. */
export function footerHint(mode: InspectorMode, window: Window): string {
	if (mode === 'detail') {
		return '↑/↓ scroll · Enter/Esc back · r replay · e edit · y copy id · ? help · q quit';
	}

	const searching = window.olderEnd || window.rows.length > window.cursor + 1 ? '' : ' · reading…';
	return `${window.rows.length === 0 ? 'no events' : `row ${cursorPosition(window)}`}${searching} · Enter detail · / search · f filter · r replay · e edit · y copy · p pause · ? help · q quit`;
}

/**
 * The table: heading and the rows in view, the ids whole. With `marked` (no colour, so no reverse
 * video: NO_COLOR, TERM=dumb) every line starts with a 2-column gutter and the cursor's row with
 * `›` in it, so the row the keys act on is visible.
 */
export function listLines(shown: Window, view: number, width: number, marked = false): string[] {
	const rows = shown.rows.slice(shown.top, shown.top + view);
	if (rows.length === 0) {
		return [shown.olderEnd ? 'No events match.' : 'Reading…'];
	}

	if (!marked) {
		return formatEventTable(rows.map(row => row.event), width);
	}

	const selected = shown.cursor - shown.top + 1;
	return formatEventTable(rows.map(row => row.event), width - 2).map((line, index) => `${index === selected ? selectedMarker : ' '} ${line}`);
}
