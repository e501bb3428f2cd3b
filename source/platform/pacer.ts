/**
 * Paces the calls of one client: at most `perSecond` attempts start per second (evenly spaced,
 * no burst), and a 429 holds every caller until its Retry-After has passed. Shared by all the
 * workers of a process, so one 429 slows them all.
 */
import {setTimeout as sleep} from 'node:timers/promises';

export type PacerOptions = {
	/** Calls per second; undefined: unlimited (only 429 pauses apply). */
	perSecond?: number;
	/** Told of each pause a 429 causes (e.g. to hold the other replicas too). */
	onPause?: (ms: number) => void;
};

export class Pacer {
	private readonly intervalMs: number;
	/** When the next attempt may start (performance clock, ms). */
	private nextSlot = 0;
	private pausedUntil = 0;

	constructor(private readonly options: PacerOptions = {}) {
		const rate = options.perSecond;
		this.intervalMs = rate === undefined || rate <= 0 ? 0 : 1000 / rate;
	}

	/** Resolves when an attempt may start; rejects with the signal's reason when it aborts first. */
	async acquire(signal?: AbortSignal): Promise<void> {
		const now = performance.now();
		const start = Math.max(now, this.pausedUntil, this.nextSlot);
		if (this.intervalMs > 0) {
			this.nextSlot = start + this.intervalMs;
		}

		const wait = start - now;
		if (wait >= 1) {
			await sleep(wait, undefined, signal ? {signal} : undefined);
		}
	}

	/** Holds every caller for `ms` (a 429's Retry-After, or the backoff in its place). */
	pause(ms: number): void {
		const until = performance.now() + ms;
		if (until > this.pausedUntil) {
			this.pausedUntil = until;
			this.options.onPause?.(ms);
		}
	}

	/** Milliseconds left of the current pause (0 when none). */
	pausedForMs(): number {
		return Math.max(0, this.pausedUntil - performance.now());
	}
}
