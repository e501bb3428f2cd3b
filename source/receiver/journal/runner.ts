/**
 * Feeds stored events to the job handler, at most `concurrency` at once. At most `memoryLimit`
 * event ids wait in memory; past that new events stay on disk only (they are in the journal's
 * queue already) and are read back in order as slots free, so a burst costs disk, not memory.
 * An event waiting for its next attempt (its schedule stored with it) is set aside until it is
 * due, then looked for again; at start every queued event is looked at, so a schedule survives a
 * restart.
 */
import {settlesWithin} from '../drain.js';
import {DrainTimeoutError} from '../store/memory-backend.js';

export type RunnerSource = {
	/** Up to `limit` unfinished event ids, oldest first, leaving out those `skip` names. */
	scan(limit: number, skip: (id: string) => boolean): string[];
	/** One attempt at `id`; 'busy' when another process holds it; `laterMs` when it waits until then (ms since the epoch). */
	run(id: string, signal: AbortSignal): Promise<'busy' | 'done' | {laterMs: number}>;
};

type Running = {controller: AbortController; done: Promise<void>};

export class JobRunner {
	private waiting: string[] = [];
	private readonly known = new Set<string>();
	/** Held by another live process; left alone until the next rescan. */
	private readonly heldElsewhere = new Set<string>();
	private readonly running = new Map<string, Running>();
	/** Events waiting for their next attempt, with when it is due (ms since the epoch). */
	private readonly deferred = new Map<string, number>();
	private wakeTimer: NodeJS.Timeout | undefined;
	private wakeAt = Number.POSITIVE_INFINITY;
	/** Events may wait on disk that are not in `waiting` (always so at start: the resume). */
	private spilled = true;
	private stopping = false;
	/** The journal cannot record (a full disk): no attempt starts until `rescan`. */
	private paused = false;

	constructor(
		private readonly source: RunnerSource,
		private readonly concurrency: number,
		private readonly memoryLimit: number,
		private readonly abortGraceMs: number,
	) {}

	get active(): number {
		return this.running.size;
	}

	/** Whether `id` waits in memory or runs here. */
	holds(id: string): boolean {
		return this.known.has(id);
	}

	/** Events set aside until their next attempt is due, and the earliest of those attempts. */
	waitingSummary(): {count: number; nextAttemptAt?: string} {
		let next = Number.POSITIVE_INFINITY;
		for (const atMs of this.deferred.values()) {
			next = Math.min(next, atMs);
		}

		return Number.isFinite(next) ? {count: this.deferred.size, nextAttemptAt: new Date(next).toISOString()} : {count: 0};
	}

	/** A freshly stored event to process. */
	offer(id: string): void {
		if (this.stopping || this.known.has(id)) {
			return;
		}

		if (this.spilled || this.waiting.length >= this.memoryLimit) {
			// Older events wait on disk: this one joins them there, so the order holds.
			this.spilled = true;
			this.pump();
			return;
		}

		this.waiting.push(id);
		this.known.add(id);
		this.pump();
	}

	/** Starts no attempt until the next `rescan` (the journal cannot record now). */
	pause(): void {
		this.paused = true;
	}

	/** Looks at the disk again (events left by a process that died since, or held elsewhere before); ends a pause. */
	rescan(): void {
		this.paused = false;
		this.heldElsewhere.clear();
		this.spilled = true;
		this.pump();
	}

	pump(): void {
		while (!this.stopping && !this.paused && this.running.size < this.concurrency) {
			let id = this.waiting.shift();
			if (id === undefined && this.spilled) {
				this.refill();
				id = this.waiting.shift();
			}

			if (id === undefined) {
				return;
			}

			this.launch(id);
		}
	}

	/** Stops taking jobs; waits `drainMs` for running ones, then aborts the rest. Returns how many were cut off. */
	async stop(drainMs: number): Promise<number> {
		this.stopping = true;
		clearTimeout(this.wakeTimer);
		this.deferred.clear();
		for (const id of this.waiting) {
			this.known.delete(id);
		}

		this.waiting = [];
		if (await this.settled(drainMs)) {
			return 0;
		}

		const cutOff = this.running.size;
		for (const job of this.running.values()) {
			job.controller.abort(new DrainTimeoutError(drainMs));
		}

		await this.settled(this.abortGraceMs);
		return cutOff;
	}

	private refill(): void {
		const found = this.source.scan(this.memoryLimit, id => this.known.has(id) || this.heldElsewhere.has(id) || this.deferred.has(id));
		this.spilled = found.length >= this.memoryLimit;
		for (const id of found) {
			this.waiting.push(id);
			this.known.add(id);
		}
	}

	private launch(id: string): void {
		const controller = new AbortController();
		const done = this.source.run(id, controller.signal)
			.then(outcome => {
				if (outcome === 'busy') {
					this.heldElsewhere.add(id);
				} else if (typeof outcome === 'object') {
					this.defer(id, outcome.laterMs);
				}
			}, () => undefined)
			.finally(() => {
				this.running.delete(id);
				this.known.delete(id);
				this.pump();
			});
		this.running.set(id, {controller, done});
	}

	/** Sets `id` aside until `atMs`; one timer, for the earliest, brings the due ones back. */
	private defer(id: string, atMs: number): void {
		if (this.stopping) {
			return;
		}

		this.deferred.set(id, atMs);
		if (atMs < this.wakeAt) {
			clearTimeout(this.wakeTimer);
			this.wakeAt = atMs;
			this.wakeTimer = setTimeout(() => {
				this.wake();
			}, Math.max(0, atMs - Date.now()));
			this.wakeTimer.unref();
		}
	}

	/** Brings every event set aside back at once (their source decides they are due). */
	wakeAll(): void {
		for (const id of this.deferred.keys()) {
			this.deferred.set(id, 0);
		}

		this.wake();
	}

	private wake(): void {
		clearTimeout(this.wakeTimer);
		this.wakeAt = Number.POSITIVE_INFINITY;
		const now = Date.now();
		let next = Number.POSITIVE_INFINITY;
		for (const [id, atMs] of this.deferred) {
			if (atMs <= now) {
				this.deferred.delete(id);
			} else {
				next = Math.min(next, atMs);
			}
		}

		if (Number.isFinite(next)) {
			this.wakeAt = next;
			this.wakeTimer = setTimeout(() => {
				this.wake();
			}, Math.max(0, next - now));
			this.wakeTimer.unref();
		}

		this.spilled = true;
		this.pump();
	}

	/** True when every running job ended within `ms`. */
	private async settled(ms: number): Promise<boolean> {
		return this.running.size === 0 || settlesWithin(Promise.all([...this.running.values()].map(async job => job.done)), ms);
	}
}
