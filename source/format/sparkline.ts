/**
 * Sparklines: a row of numbers as a row of block characters (▁▂▃▄▅▆▇█), one column each, and the
 * plain text a screen shows instead when it draws no pictures (no colour, no terminal). Pure.
 */
import {displayWidth} from './width.js';

/** The eight heights, lowest first; each takes one column. */
export const sparkLevels = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'] as const;

/** How far up `value` goes out of `max`: 0 (▁) for nothing, 1 at the least for something, 7 (█) for `max` and above. */
export function sparkLevel(value: number, max: number): number {
	if (!(value > 0) || !(max > 0)) {
		return 0;
	}

	const top = sparkLevels.length - 1;
	return Math.min(top, Math.max(1, Math.ceil((value / max) * top)));
}

/**
 * The last `width` values (the newest, at the end) as a sparkline of that many columns, or fewer
 * when there are fewer values. Heights are relative to `max` (the largest value by default), so
 * the same figure draws the same height everywhere in the line.
 */
export function sparkline(values: readonly number[], width: number, max?: number): string {
	const room = Math.max(0, Math.floor(width));
	const shown = room === 0 ? [] : values.slice(-room);
	const top = max ?? shown.reduce((highest, value) => (value > highest ? value : highest), 0);
	return shown.map(value => sparkLevels[sparkLevel(value, top)]).join('');
}

/**
 * The values as plain figures, newest last, as many as fit in `width` columns (the oldest are left
 * out first): `0 3 12 7`.
 */
export function plainFigures(values: readonly number[], width: number): string {
	const figures: string[] = [];
	let used = 0;
	for (let index = values.length - 1; index >= 0; index--) {
		const figure = String(Math.round(values[index] ?? 0));
		const needed = displayWidth(figure) + (figures.length > 0 ? 1 : 0);
		if (used + needed > width) {
			break;
		}

		figures.unshift(figure);
		used += needed;
	}

	return figures.join(' ');
}

/** The largest value (0 for none). */
export function peak(values: readonly number[]): number {
	return values.reduce((highest, value) => (value > highest ? value : highest), 0);
}
