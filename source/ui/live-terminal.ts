/**
 * The terminal as Ink sees it while a live screen runs. Two things Ink gets wrong about a terminal
 * whose window is narrowed are put right here, where every write passes:
 * - Ink erases its previous frame by counting the lines it wrote, but the terminal has re-wrapped
 *   those lines at the new width, so a narrowed window kept broken copies of the old frame above
 *   the new one. The first erase after a narrowing erases the rows the old lines take at the new
 *   width (see WrittenLines).
 * - When the previous frame was as tall as the window, Ink clears the whole terminal and its
 *   scrollback (lines printed before the app started vanished). Our screens always fit their frame
 *   into the window (they follow `terminalSize`), so Ink is told the window is never too short.
 */
import {EventEmitter} from 'node:events';
import {WrittenLines} from './written-lines.js';

type Terminal = NodeJS.WritableStream & NodeJS.EventEmitter & {columns?: number; rows?: number; isTTY?: boolean};

/** Rows reported to Ink: no frame is ever this tall, so Ink never clears the terminal. */
const rowsForInk = 10_000;

/** What Ink writes to erase `count` lines: each erased, moving up between them, then column 1. */
function eraseLines(count: number): string {
	return count > 0 ? `${'\u001B[2K\u001B[1A'.repeat(count - 1)}\u001B[2K\u001B[G` : '';
}

// eslint-disable-next-line no-control-regex
const leadingErase = /^((?:\u001B\[\d*[AB])*)((?:\u001B\[2K(?:\u001B\[1A)?)+\u001B\[G)/;

export class LiveTerminal extends EventEmitter {
	readonly terminal: Terminal;
	private readonly lines = new WrittenLines();
	private knownColumns: number | undefined;
	/** Set between a narrowing and the first erase after it. */
	private narrowedTo: number | undefined;
	private readonly onResize = () => {
		const columns = this.terminal.columns;
		if (columns !== undefined && this.knownColumns !== undefined && columns < this.knownColumns) {
			this.narrowedTo = columns;
		}

		this.knownColumns = columns;
		this.emit('resize');
	};

	constructor(terminal: Terminal) {
		super();
		this.terminal = terminal;
		this.knownColumns = terminal.columns;
		terminal.on('resize', this.onResize);
	}

	get isTTY(): boolean {
		return this.terminal.isTTY === true;
	}

	get columns(): number | undefined {
		return this.terminal.columns;
	}

	get rows(): number {
		return rowsForInk;
	}

	/** The terminal's real height (Ink is told `rowsForInk`). */
	get terminalRows(): number | undefined {
		return this.terminal.rows;
	}

	write(data: string | Uint8Array, ...rest: unknown[]): boolean {
		let text = typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
		if (this.narrowedTo !== undefined) {
			const erase = leadingErase.exec(text);
			if (erase) {
				const count = (erase[2] ?? '').split('\u001B[2K').length - 1;
				const rows = this.lines.rowsAt(this.narrowedTo, count);
				text = (erase[1] ?? '') + eraseLines(rows) + text.slice(erase[0].length);
				this.narrowedTo = undefined;
			}
		}

		this.lines.write(text);
		return (this.terminal.write as (chunk: string, ...more: unknown[]) => boolean)(text, ...rest);
	}

	/** Stops following the terminal's resizes. */
	dispose(): void {
		this.terminal.off('resize', this.onResize);
	}
}

/** A stream's columns and rows, the real ones for a LiveTerminal. */
export function terminalSize(stream: {columns?: number; rows?: number}): {columns: number | undefined; rows: number | undefined} {
	if (stream instanceof LiveTerminal) {
		return {columns: stream.columns, rows: stream.terminalRows};
	}

	return {columns: stream.columns, rows: stream.rows};
}
