/**
 * The receiver's counters as status items, and the separator between items: shared by the status
 * box (status-lines.ts, on a terminal) and the plain log lines (format.ts), which must not load
 * the box's wrapping and width measuring.
 */
import type {ReceiverCounters} from '../../receiver/events.js';

export type Tone = 'plain' | 'bold' | 'green' | 'yellow' | 'red' | 'cyan' | 'dim';

/** One figure or hint; never split across lines. */
export type StatusItem = {text: string; tone?: Tone};

export const separator = ' · ';

/** The counters as items, in one fixed order. */
export function counterItems(counters: ReceiverCounters): StatusItem[] {
	return [
		{text: `received ${counters.received}`},
		{text: `verified ${counters.verified}`},
		{text: `rejected ${counters.rejected}`},
		{text: `duplicates ${counters.duplicates}`},
		{text: `processing ${counters.processing}`},
		{text: `answered ${counters.answered}`},
		{text: `failed ${counters.failed}`},
	];
}

/**
 * What a stop left, as items (none when it left nothing): the jobs cut off at the drain deadline,
 * and the events left waiting, which the next start (or another replica) resumes; a cut-off job
 * that was not left waiting took the failure path.
 */
export function stopItems(stopped: {cutOff: number; leftWaiting: number}): StatusItem[] {
	const items: StatusItem[] = [];
	const {cutOff, leftWaiting} = stopped;
	if (cutOff > 0) {
		items.push({text: `${cutOff} ${cutOff === 1 ? 'job' : 'jobs'} cut off at the drain deadline`});
	}

	if (leftWaiting > 0) {
		items.push({text: `${leftWaiting} left waiting for the next start or another replica`});
	}

	if (cutOff > leftWaiting) {
		items.push({text: `${cutOff - leftWaiting} failed (logs FAILED, apology written)`});
	}

	return items;
}

/** One section of the status box: its items, packed onto as many lines as they need (status-lines.ts). */
export type StatusSection = {
	key: string;
	items: StatusItem[];
	/** Tone of the separators and of items without their own. */
	tone?: Tone;
	/** A path: cut in the middle when it does not fit, rather than wrapped. */
	path?: boolean;
	/** The first line starts with a spinner (2 columns). */
	spinner?: boolean;
	/** Sentences: each item is wrapped at spaces onto lines of its own, never cut. */
	wrap?: boolean;
	/** Items made for the line's width (a picture that fills it), in place of `items`. */
	fit?: (width: number) => StatusItem[];
};
