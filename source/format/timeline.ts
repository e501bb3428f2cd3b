/**
 * A span of time as a bar of a given width: the part gone by heavy (━), the moment now a dot (●),
 * the part to come light (─); and labels spread under it, one at each end. Pure: times are given.
 */
import {cutToWidth, displayWidth, padStartToWidth} from './width.js';

/** The column of `now` (0-based) in a bar of `width` columns from `startMs` to `endMs`. */
export function timelinePosition(startMs: number, nowMs: number, endMs: number, width: number): number {
	const columns = Math.max(1, Math.floor(width));
	const span = endMs - startMs;
	const ratio = span > 0 ? (nowMs - startMs) / span : 1;
	const clamped = Number.isFinite(ratio) ? Math.min(1, Math.max(0, ratio)) : 1;
	return Math.round(clamped * (columns - 1));
}

/** The bar: `━━━━●─────────` in exactly `width` columns (none for a width below 1). */
export function timelineBar(startMs: number, nowMs: number, endMs: number, width: number): string {
	const columns = Math.floor(width);
	if (!(columns >= 1)) {
		return '';
	}

	const at = timelinePosition(startMs, nowMs, endMs, columns);
	return `${'━'.repeat(at)}●${'─'.repeat(columns - at - 1)}`;
}

/**
 * `left` at the start and `right` at the end of one line of `width` columns, when both fit with a
 * space between; else each on a line of its own (`right` still to the right), cut with `…` to fit.
 */
export function spreadLabels(left: string, right: string, width: number): string[] {
	const room = Math.max(1, Math.floor(width));
	const gap = room - displayWidth(left) - displayWidth(right);
	if (gap >= 1) {
		return [`${left}${' '.repeat(gap)}${right}`];
	}

	return [cutToWidth(left, room), padStartToWidth(cutToWidth(right, room), room)];
}
