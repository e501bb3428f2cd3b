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
	// Details get at most two thirds of what is left, and at least 3 lines when they fit.
	const detailLines = input.detailsWanted > 0 && free >= 3 ? Math.min(input.detailsWanted, Math.max(3, Math.floor((free * 2) / 3))) : 0;
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
