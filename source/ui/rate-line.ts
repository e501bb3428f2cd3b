/**
 * A rate in one line of a given width, for every screen that shows one (serve's status box, the
 * inspector's header, the upload's throughput): with pictures, a sparkline of the last buckets
 * between the label and the figures; without (no colour, no terminal), the figures alone. Pure.
 */
import {peak, sparkline} from '../format/sparkline.js';
import {cutToWidth, displayWidth} from '../format/width.js';

export type RateLineInput = {
	/** What is counted, e.g. `events` or `throughput`. */
	label: string;
	/** Counts per bucket, oldest first; the last is the latest whole bucket. */
	values: readonly number[];
	/** A count as a rate, e.g. `12/s`, `3/min`, `1.2 MB/s`. */
	unit: (value: number) => string;
	width: number;
	/** Draw the sparkline (colour on a terminal); else plain text. */
	pictures: boolean;
};

/** Columns a sparkline needs at the least to say something. */
const minimumSpark = 4;

/**
 * `events ▁▂█▃▁ 3/s (peak 12/s)` with pictures, `events 3/s (peak 12/s)` without, in `width`
 * columns at most: on a narrow line the peak goes first, then the sparkline; cut as a last resort.
 */
export function rateLine({label, values, unit, width, pictures}: RateLineInput): string {
	const latest = unit(values.at(-1) ?? 0);
	const choices = [`${latest} (peak ${unit(peak(values))})`, latest];
	if (pictures && values.length > 0) {
		for (const figures of choices) {
			const room = width - displayWidth(`${label} ${figures}`) - 1;
			if (room >= minimumSpark) {
				return `${label} ${sparkline(values, room)} ${figures}`;
			}
		}
	}

	const plain = choices.map(figures => `${label} ${figures}`).find(text => displayWidth(text) <= width);
	return plain ?? cutToWidth(`${label} ${latest}`, Math.max(0, width));
}
