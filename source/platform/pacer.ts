/**
 * Paces the calls of one client: at most `perSecond` attempts start per second (evenly spaced,
 * no burst), and a 429 holds every caller until its Retry-After has passed. Shared by all the
 * workers of a process, so one 429 slows them all.
 */
import {monotonicClock, neverAborted, type Clock} from './clock.js';

export type PacerOptions = {
	/** Calls per second; undefined: unlimited (only 429 pauses apply). */
	perSecond?: number;
	/** Told of each pause a 429 causes (e.g. to hold the other replicas too). */
	onPause?: (ms: number) => void;
	/** Default: the monotonic clock (a test passes a `ManualClock`). */
	clock?: Clock;
};

export class Pacer {
	private readonly intervalMs: number;
	private readonly clock: Clock;
	/** When the next attempt may start (the clock's ms). */
	private nextSlot = 0;
	private pausedUntil = 0;

	constructor(private readonly options: PacerOptions = {}) {
		this.clock = options.clock ?? monotonicClock;
		const rate = options.perSecond;
		this.intervalMs = rate === undefined || rate <= 0 ? 0 : 1000 / rate;
	}

	/** Resolves when an attempt may start; rejects with the signal's reason when it aborts first. */
	async acquire(signal?: AbortSignal): Promise<void> {
		const now = this.clock.now();
		const start = Math.max(now, this.pausedUntil, this.nextSlot);
		if (this.intervalMs > 0) {
			this.nextSlot = start + this.intervalMs;
		}

		const wait = start - now;
		if (wait >= 1) {
			await this.clock.sleep(wait, signal ?? neverAborted);
			signal?.throwIfAborted();
		}
	}

	/** Holds every caller for `ms` (a 429's Retry-After, or the backoff in its place). */
	pause(ms: number): void {
		const until = this.clock.now() + ms;
		if (until > this.pausedUntil) {
			this.pausedUntil = until;
			this.options.onPause?.(ms);
		}
	}

	/** Milliseconds left of the current pause (0 when none). */
	pausedForMs(): number {
		return Math.max(0, this.pausedUntil - this.clock.now());
	}
}
