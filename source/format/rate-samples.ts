/**
 * A fixed number of time buckets that count what happened in each (events, bytes), the newest
 * last: what a sparkline of a rate draws. Adding is O(1) in the buckets passed, memory is the
 * bucket count whatever the load, and time is always given (an injected clock), never read here.
 * The value is immutable (a reducer can hold it); `RateSampler` wraps it for a mutable holder.
 */

export type RateSamples = {
	readonly bucketMs: number;
	readonly size: number;
	/** The newest bucket's number (time / bucketMs); -Infinity while nothing was added. */
	readonly newest: number;
	/** Counts by bucket number modulo `size`. */
	readonly counts: readonly number[];
};

/** No counts yet: `size` buckets of `bucketMs` each (both at least 1). */
export function emptySamples(bucketMs: number, size: number): RateSamples {
	const buckets = Math.max(1, Math.floor(size));
	return {bucketMs: Math.max(1, bucketMs), size: buckets, newest: Number.NEGATIVE_INFINITY, counts: Array.from({length: buckets}, () => 0)};
}

const bucketOf = (samples: RateSamples, at: number) => Math.floor(at / samples.bucketMs);
const slotOf = (samples: RateSamples, bucket: number) => ((bucket % samples.size) + samples.size) % samples.size;

/** `amount` more in the bucket of time `at` (ms); a time older than the buckets kept is dropped. */
export function addSample(samples: RateSamples, at: number, amount = 1): RateSamples {
	const copy = {...samples, counts: [...samples.counts]};
	return addInPlace(copy, at, amount) ? copy : samples;
}

/** addSample into `samples` itself (its own copy: RateSampler's); false when nothing was added. */
function addInPlace(samples: {bucketMs: number; size: number; newest: number; counts: number[]}, at: number, amount: number): boolean {
	const bucket = bucketOf(samples, at);
	if (!Number.isFinite(bucket) || !(amount > 0) || bucket <= samples.newest - samples.size) {
		return false;
	}

	const {counts, newest} = samples;
	if (bucket > newest) {
		// The buckets passed since the newest start again from 0 (all of them after a long pause).
		const cleared = Math.min(samples.size, Number.isFinite(newest) ? bucket - newest : samples.size);
		for (let step = 0; step < cleared; step++) {
			counts[slotOf(samples, bucket - step)] = 0;
		}

		samples.newest = bucket;
	}

	const slot = slotOf(samples, bucket);
	counts[slot] = (counts[slot] ?? 0) + amount;
	return true;
}

/**
 * The counts of the `size` buckets up to the one of time `now`, oldest first (0 where nothing
 * came); buckets before the one of `since` (when given) are left out, so a rate that started a
 * moment ago has a short line, not a row of zeros it never measured.
 */
export function sampleValues(samples: RateSamples, now: number, since?: number): number[] {
	const last = bucketOf(samples, now);
	const first = Math.max(last - samples.size + 1, since === undefined ? Number.NEGATIVE_INFINITY : bucketOf(samples, since));
	const values: number[] = [];
	for (let bucket = first; bucket <= last; bucket++) {
		const kept = bucket <= samples.newest && bucket > samples.newest - samples.size;
		values.push(kept ? samples.counts[slotOf(samples, bucket)] ?? 0 : 0);
	}

	return values;
}

/** A rate sampler for a mutable holder (a screen's ref), counting in place at the clock's time. */
export class RateSampler {
	private readonly samples: {bucketMs: number; size: number; newest: number; counts: number[]};

	constructor(private readonly options: {bucketMs: number; size: number; clock: () => number}) {
		const empty = emptySamples(options.bucketMs, options.size);
		this.samples = {...empty, counts: [...empty.counts]};
	}

	/** `amount` more now (or at `at`, when the time is known). */
	record(amount = 1, at = this.options.clock()): void {
		addInPlace(this.samples, at, amount);
	}

	/** The counts per bucket up to now, oldest first (see sampleValues). */
	values(since?: number): number[] {
		return this.valuesAt(this.options.clock(), since);
	}

	/** The counts per bucket up to time `at`, oldest first (see sampleValues). */
	valuesAt(at: number, since?: number): number[] {
		return sampleValues(this.samples, at, since);
	}
}
