/**
 * The inspector's pulse (pure): events per minute over the last half hour, counted from the rows
 * the inspector has read (the ones its search and filter match), drawn at the right of its header.
 * Each row is counted once, by the time it was received: the newest rows as following brings them
 * in, older ones as the cursor reads further down. Only minutes whose events were all read are
 * drawn, so a busy journal's pulse starts short and grows rather than showing a quiet past it
 * never read.
 */
import {addSample, emptySamples, sampleValues, type RateSamples} from '../../format/rate-samples.js';
import {displayWidth} from '../../format/width.js';
import {rateLine} from '../rate-line.js';
import type {Key, Window} from './inspector-window.js';

/** One bucket a minute, half an hour of them. */
export const pulseBucketMs = 60_000;
export const pulseBuckets = 30;

export type Pulse = {
	samples: RateSamples;
	/** The newest and the oldest key counted; none yet. */
	newest?: Key;
	oldest?: Key;
	/** When the oldest row counted was received, ms. */
	oldestAt?: number;
	/** Every event older than `oldest` was read too (the end of the journal, or of the search). */
	complete: boolean;
	/** What the rows were read for (a new search or filter starts again). */
	scope: unknown;
};

export function startPulse(scope: unknown): Pulse {
	return {samples: emptySamples(pulseBucketMs, pulseBuckets), complete: false, scope};
}

const compare = (a: Key, b: Key) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : (a[1] > b[1] ? 1 : 0)) : a[0] - b[0]);

/**
 * Counts the window's rows not counted yet. A window of another scope, or one whose rows all come
 * after the newest counted (more arrived than one read brings: a gap), starts the count again.
 */
export function feedPulse(pulse: Pulse, window: Window, scope: unknown): Pulse {
	const last = window.rows.at(-1);
	const gap = pulse.newest !== undefined && last !== undefined && compare(last.key, pulse.newest) > 0 && !window.olderEnd;
	const next = pulse.scope !== scope || gap ? startPulse(scope) : pulse;
	let {samples, newest, oldest, oldestAt} = next;
	for (const {key, event} of window.rows) {
		if (newest === undefined || oldest === undefined || compare(key, newest) > 0 || compare(key, oldest) < 0) {
			const at = Date.parse(event.receivedAt);
			samples = addSample(samples, at);
			newest = newest === undefined || compare(key, newest) > 0 ? key : newest;
			if (oldest === undefined || compare(key, oldest) < 0) {
				oldest = key;
				oldestAt = at;
			}
		}
	}

	return {...next, samples, ...(newest ? {newest} : {}), ...(oldest ? {oldest} : {}), ...(oldestAt === undefined ? {} : {oldestAt}), complete: next.complete || window.olderEnd};
}

/** Events per whole minute up to `now`, oldest first, the minutes wholly read only. */
export function pulseValues(pulse: Pulse, now: number): number[] {
	const lastWhole = now - pulseBucketMs;
	if (pulse.complete) {
		return sampleValues(pulse.samples, lastWhole);
	}

	// The minute of the oldest row read may hold older events not read yet: it is left out.
	return pulse.oldestAt === undefined || !Number.isFinite(pulse.oldestAt) ? [] : sampleValues(pulse.samples, lastWhole, pulse.oldestAt + pulseBucketMs);
}

/** The fewest columns the pulse is drawn in (`events 3/min`); with less room there is none. */
const minimumPulse = 12;

/**
 * The header with the pulse at its right, in `width` columns: the pulse takes half of them at
 * most and only the room the header leaves (what the header says, a search or a filter, never
 * gives way to it); no pulse when nothing was measured yet or there is no room.
 */
export function headerWithPulse(header: string, values: readonly number[], width: number, pictures: boolean): string {
	const room = Math.min(Math.floor(width / 2), width - displayWidth(header) - 2);
	if (values.length === 0 || room < minimumPulse) {
		return header;
	}

	const pulse = rateLine({label: 'events', values, unit: value => `${value}/min`, width: room, pictures});
	return `${header}${' '.repeat(width - displayWidth(header) - displayWidth(pulse))}${pulse}`;
}
