/**
 * The waits between polls of something the platform is still writing (a reply, an ingestion): short
 * at first, growing step by step up to `capMs` (`--poll-interval`, which keeps its meaning as the
 * longest wait). While polls see progress (the reply's text grows) the wait stays at most
 * `progressMs`, so a streaming reply reads as it is written; once progress stops the growth goes on.
 */
export type PollWaits = {
	/** The wait before the next poll, ms; `progressed`: the poll just made saw something new. */
	next(progressed?: boolean): number;
};

/** The reply: at once, then about 100, 200, 400, 800 ms, then every `--poll-interval`. */
export const replySteps: readonly number[] = [100, 200, 400, 800];
/** While a reply's text grows: at most this between polls (3 or 4 polls a second, not more). */
export const replyProgressMs = 300;
/** Ingestion: the first round at most this long after the first finalize. */
export const ingestionFirstMs = 600;
/** Ingestion: then 250 and 500 ms between rounds, then every `--poll-interval`. */
export const ingestionSteps: readonly number[] = [250, 500];

export function pollWaits(capMs: number, steps: readonly number[], progressMs?: number): PollWaits {
	// While polls see progress the waits grow no further than `progressMs`, and resume from the first
	// step past it once progress stops.
	const pinned = progressMs === undefined ? steps.length : steps.findIndex(step => step > progressMs);
	let index = 0;
	return {
		next(progressed = false) {
			const step = steps[index] ?? capMs;
			if (progressed && progressMs !== undefined) {
				index = step < progressMs ? index + 1 : (pinned < 0 ? steps.length : pinned);
				return Math.min(step, progressMs, capMs);
			}

			index++;
			return Math.min(step, capMs);
		},
	};
}
