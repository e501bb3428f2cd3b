/**
 * `keys show`'s picture of a rotation's overlap, under the previous key's lines on a coloured
 * terminal: a bar from the rotation to the old key's expiry with now on it, the new key's age at
 * its left and the time the old key has left at its right. Without colour or a terminal nothing is
 * added: the previous key's lines already say it in words ("…1234 still works until …, 2 h left").
 */
import {formatCountdown} from '../../format/duration.js';
import {spreadLabels, timelineBar} from '../../format/timeline.js';
import type {KeyStatus} from '../../keys/status.js';
import {labelWidth} from './status-lines.js';
/** The bar's columns at the most, and the least it needs to say anything. */
const widest = 60;
const narrowest = 10;

export type OverlapOptions = {
	/** Draw (colour on a terminal). */
	pictures: boolean;
	/** The terminal's columns (80 when unknown). */
	columns?: number;
};

/** The lines to add: none unless pictures are drawn, the previous key still works and the rotation's time is known. */
export function overlapLines(status: KeyStatus, now: Date, {pictures, columns = 80}: OverlapOptions): string[] {
	const previous = status.previousKey;
	const rotatedAt = Date.parse(status.lastRotatedAt ?? status.keySetAt ?? '');
	const expiresAt = Date.parse(previous?.expiresAt ?? '');
	const width = Math.min(widest, columns - labelWidth - 1);
	if (!pictures || !previous?.valid || !Number.isFinite(rotatedAt) || !Number.isFinite(expiresAt) || width < narrowest) {
		return [];
	}

	const nowMs = now.getTime();
	const indent = ' '.repeat(labelWidth);
	const labels = spreadLabels(`new key ${formatCountdown(Math.max(0, nowMs - rotatedAt))} old`, `old key ${formatCountdown(expiresAt - nowMs)} left`, width);
	return [`${'Overlap'.padEnd(labelWidth)}${timelineBar(rotatedAt, nowMs, expiresAt, width)}`, ...labels.map(line => `${indent}${line}`)];
}
