/** How the live area of the serve screen fits the terminal: always shorter than it (pure). */

export type LiveLayout = {
	/** Live rows shown. */
	liveRows: number;
	/** Live rows summarized in one line ("… N more running"), 0 when all are shown. */
	hiddenLive: number;
	/** Lines the details box may use (its border included); 0 when closed. */
	detailLines: number;
	/** A blank line between the live rows and the box (only when the terminal has room to spare). */
	spacer: boolean;
};

/** Below this many rows the screen is compact: no blank spacer lines. */
export const compactRows = 20;

/**
 * Fits the live area into `rows` terminal lines, keeping one line free so Ink never fills the
 * window (past it Ink clears the screen and the scrollback on every frame). The status box comes
 * first, then the selected row and its details, then the live rows.
 */
export function liveLayout(input: {rows: number | undefined; statusLines: number; selected: boolean; noticeLines?: number; detailsWanted: number; live: number}): LiveLayout {
	const rows = input.rows ?? 24;
	let free = Math.max(0, rows - 1 - input.statusLines);
	const selectedLine = input.selected ? Math.min(1, free) : 0;
	free -= selectedLine;
	free -= Math.min(free, input.noticeLines ?? 0);
	// Open details take what is left but the summary line of the live rows (they were asked for);
	// the status box has already given way to them (statusBoxLines).
	const detailLines = input.detailsWanted > 0 && free >= 3 ? Math.min(input.detailsWanted, free - (input.live > 0 && free > 3 ? 1 : 0)) : 0;
	free -= detailLines;
	// A margin line separates live rows from the box, unless the terminal is short.
	const spacer = rows >= compactRows && input.live > 0;
	const forLive = Math.max(0, free - (spacer ? 1 : 0));
	if (input.live <= forLive) {
		return {liveRows: input.live, hiddenLive: 0, detailLines, spacer: spacer && input.live > 0};
	}

	if (forLive === 0) {
		// No room even for the summary: the counters line still says how many are processing.
		return {liveRows: 0, hiddenLive: 0, detailLines, spacer: false};
	}

	const shown = forLive - 1;
	return {liveRows: shown, hiddenLive: input.live - shown, detailLines, spacer};
}

/** Lines the details box needs at the least to show something: its border and 3 lines. */
const minimumDetails = 5;

/**
 * Lines inside the status box at most: all that fit in the window (one line kept free), unless
 * details are open. Then the box gives way, down to 1 line inside it ("… N more lines"), until the
 * details have half of the window's free lines (at least `minimumDetails`): on a short terminal
 * (60×15, a box of 8 lines) Enter showed nothing but the box and the details' last line.
 */
export function statusBoxLines(input: {rows: number | undefined; statusContent: number; detailsWanted: number; selected: boolean; noticeLines?: number}): number {
	const rows = input.rows ?? 24;
	const fits = Math.max(1, rows - 3);
	if (input.detailsWanted === 0) {
		return fits;
	}

	const free = rows - 1 - (input.selected ? 1 : 0) - (input.noticeLines ?? 0);
	const forDetails = Math.min(input.detailsWanted, Math.max(minimumDetails, Math.floor(free / 2)));
	return Math.max(1, Math.min(fits, input.statusContent, free - forDetails - 2));
}
