/**
 * The terminal as Ink sees it while a live screen runs. Two things Ink gets wrong about a terminal
 * whose window is resized are put right here, where every write passes:
 * - Ink erases its previous frame by counting the lines it wrote, but the terminal has re-wrapped
 *   those lines at the new width, so a narrowed window kept broken copies of the old frame above
 *   the new one. An erase of lines wider than the window now erases the rows they take at its
 *   width (see WrittenLines).
 * - Re-wrapped, the old frame may be taller than the window: its top is then in the scrollback,
 *   where moving the cursor up cannot reach. Those lines are left whole (a line erased only in
 *   part would be joined to the next frame's first line when the terminal re-wraps), the new frame
 *   is written below them, and they are remembered: when the window grows back, the terminal pulls
 *   them back onto the screen (xterm.js, VTE, kitty and tmux refill a taller window from the
 *   scrollback), right above the frame, and the first erase that can reach them erases them too.
 *   Finished rows printed meanwhile sit between them and the frame: that erase takes them too and
 *   prints them again as they were written (up to `maxPrinted` lines; past it the old lines are
 *   forgotten). A terminal that does not bring the lines back keeps them in its scrollback.
 * - When the previous frame was as tall as the window, Ink clears the whole terminal and its
 *   scrollback (lines printed before the app started vanished). Our screens always fit their frame
 *   into the window (they follow `terminalSize`), so Ink is told the window is never too short.
 */
import {EventEmitter} from 'node:events';
import {terminalColumns, terminalRows} from '../terminal.js';
import {WrittenLines} from './written-lines.js';

type Size = {columns: number | undefined; rows: number | undefined};

type Terminal = NodeJS.WritableStream & NodeJS.EventEmitter & {columns?: number; rows?: number; isTTY?: boolean};

/** Lines printed below kept lines of an old frame that are still printed again to erase those (past it, they are forgotten). */
const maxPrinted = 500;

/** Rows reported to Ink: no frame is ever this tall, so Ink never clears the terminal. */
const rowsForInk = 10_000;

/** What Ink writes to erase `count` lines: each erased, moving up between them, then column 1. */
function eraseLines(count: number): string {
	return count > 0 ? `${'\u001B[2K\u001B[1A'.repeat(count - 1)}\u001B[2K\u001B[G` : '';
}

// eslint-disable-next-line no-control-regex
const leadingErase = /^((?:\u001B\[\d*[AB])*)((?:\u001B\[2K(?:\u001B\[1A)?)+\u001B\[G)/;

/**
 * Which lines of a block (the rows each takes now, topmost first) an erase may touch in a window
 * `height` rows tall, the cursor on the block's last line: all of them when they fit; otherwise
 * those below the lines that start above the screen's top, which are kept whole.
 */
export function erasePlan(rows: readonly number[], height: number | undefined): {kept: number; erasedRows: number} {
	const total = rows.reduce((sum, each) => sum + each, 0);
	if (height === undefined || total <= height) {
		return {kept: 0, erasedRows: total};
	}

	const hidden = total - height;
	let kept = 0;
	let start = 0;
	while (kept < rows.length && start < hidden) {
		start += rows[kept] ?? 0;
		kept++;
	}

	return {kept, erasedRows: total - start};
}

export class LiveTerminal extends EventEmitter {
	readonly terminal: Terminal;
	private readonly lines = new WrittenLines();
	/** The window's size when last looked at (see `size`). */
	private seen: Size;
	/** Lines of an old frame left above the current one, out of reach; `end` is the frame's first line. */
	private stale: {lines: number; end: number} | undefined;
	/**
	 * Blank rows between the cursor and the screen's bottom: a frame shorter than the one it replaced
	 * leaves some (the screen does not scroll back), and they are rows the cursor cannot go up.
	 * After a resize the terminal shows its last lines, the cursor's the bottom one.
	 */
	private below = 0;
	private readonly onResize = () => {
		this.size();
		this.emit('resize');
	};

	constructor(terminal: Terminal) {
		super();
		this.terminal = terminal;
		this.seen = {columns: terminalColumns(terminal), rows: terminalRows(terminal)};
		terminal.on('resize', this.onResize);
	}

	get isTTY(): boolean {
		return this.terminal.isTTY === true;
	}

	get columns(): number | undefined {
		return terminalColumns(this.terminal);
	}

	get rows(): number {
		return rowsForInk;
	}

	/** The terminal's real height (Ink is told `rowsForInk`). */
	get terminalRows(): number | undefined {
		return terminalRows(this.terminal);
	}

	write(data: string | Uint8Array, ...rest: unknown[]): boolean {
		let text = typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
		const size = this.size();
		const erase = leadingErase.exec(text);
		if (erase) {
			const moves = erase[1] ?? '';
			const after = text.slice(erase[0].length);
			this.lines.write(moves);
			const {terminal, logical, rows} = this.erase((erase[2] ?? '').split('\u001B[2K').length - 1, size);
			this.lines.write(logical + after);
			this.below = Math.min(this.below + rows - 1, Math.max(0, (size.rows ?? 1) - 1));
			text = moves + terminal + after;
		} else {
			this.lines.write(text);
		}

		// Each line feed moves the cursor down a row (a frame's lines fit the width): into the blank
		// rows below it, then scrolling the screen.
		this.below = Math.max(0, this.below - (text.split('\n').length - 1));

		return (this.terminal.write as (chunk: string, ...more: unknown[]) => boolean)(text, ...rest);
	}

	/** Stops following the terminal's resizes. */
	dispose(): void {
		this.terminal.off('resize', this.onResize);
	}

	/**
	 * The window's size now. A frame may be written after the terminal was resized and before the
	 * program has heard of it (SIGWINCH is handled between two writes): the terminal is asked
	 * (TIOCGWINSZ through the stream's handle, when it has one), not only the stream's last figures.
	 * A size not seen before means the terminal re-wrapped and shows its last lines.
	 */
	private size(): Size {
		let size: Size = {columns: this.columns, rows: this.terminalRows};
		const handle = (this.terminal as {_handle?: {getWindowSize?: (into: number[]) => number}})._handle;
		const asked: number[] = [];
		if (typeof handle?.getWindowSize === 'function' && handle.getWindowSize(asked) === 0 && (asked[0] ?? 0) > 0 && (asked[1] ?? 0) > 0) {
			size = {columns: asked[0], rows: asked[1]};
		}

		if (size.columns !== this.seen.columns || size.rows !== this.seen.rows) {
			this.below = 0;
			this.seen = size;
		}

		return size;
	}

	/**
	 * What erasing Ink's last `count` lines takes: the rows to erase on the terminal (with the
	 * printed lines they take, printed again), and the same as this terminal's record of lines
	 * (WrittenLines) counts them.
	 */
	private erase(count: number, size: Size): {terminal: string; logical: string; rows: number} {
		const landing = this.lines.line - (count - 1);
		// Lines printed since (finished rows) sit between the kept lines and the frame.
		const printed = this.stale === undefined ? 0 : landing - this.stale.end;
		const stale = this.stale && printed >= 0 && printed <= maxPrinted ? this.stale.lines : 0;
		this.stale = undefined;
		const between = stale > 0 ? printed : 0;
		const block = stale + between + count;
		const start = landing - between - stale;
		const rows = this.lines.rowsEach(size.columns ?? 80, block);
		// Frames are laid out at the window's width: a line wider than the window was written for a
		// wider one, and the terminal has re-wrapped it since.
		if (stale === 0 && rows.every(each => each === 1)) {
			return {terminal: eraseLines(count), logical: eraseLines(count), rows: count};
		}

		// The rows the cursor can go up through: the screen's, less the blank ones below it.
		const height = size.rows === undefined ? undefined : size.rows - this.below;
		const {kept, erasedRows} = erasePlan(rows, height);
		// The printed lines in the erased rows are printed again, in place.
		const from = Math.max(kept, stale);
		const again = this.lines.written(start + from, Math.max(0, stale + between - from)).map(line => `${line}\n`).join('');
		if (kept > 0 && (kept <= stale || between === 0)) {
			this.stale = {lines: kept, end: start + kept};
		} else if (kept > stale + between) {
			// Lines of the frame are kept below printed ones: those are what a later erase can reach.
			this.stale = {lines: kept - stale - between, end: start + kept};
		} else if (kept > stale) {
			// Printed lines are kept as they are, the old frame's lines above them.
			this.stale = {lines: stale, end: start + stale};
		}

		return {terminal: eraseLines(erasedRows) + again, logical: eraseLines(block - kept) + again, rows: erasedRows};
	}
}

/** A stream's columns and rows (0 is 80 columns, 24 rows: terminal.ts), the real ones for a LiveTerminal. */
export function terminalSize(stream: {columns?: number; rows?: number; isTTY?: boolean}): {columns: number | undefined; rows: number | undefined} {
	if (stream instanceof LiveTerminal) {
		return {columns: stream.columns, rows: stream.terminalRows};
	}

	return {columns: terminalColumns(stream), rows: terminalRows(stream)};
}
