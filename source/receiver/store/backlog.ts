/**
 * The --max-backlog bound: whether the unfinished events have reached the limit. This process's own
 * jobs are known exactly and at once; the store's count (the cluster's with Redis) is read every
 * `pollMs` and grows with each event accepted here until the next read. A delivery takes its slot
 * before its event is stored (`reserve`), so deliveries arriving together never pass the bound
 * between the check and the store. A store that bounds the backlog itself for every process sharing
 * it (`shared`: Redis) decides in its `accept` instead (`storeLimit`): the slots reserved here are
 * this process's alone, and a local decision would let each replica admit up to the limit.
 */
import {monotonicClock, type Clock} from '../../platform/clock.js';
import type {Backlog} from './backend.js';

export class BacklogLimit {
	private readCount = 0;
	private acceptedSinceRead = 0;
	/** Slots taken by deliveries whose events are being stored. */
	private reserved = 0;
	/** Aborted to end the polling. */
	private polling: AbortController | undefined;
	private reading = false;

	constructor(
		readonly limit: number,
		private readonly local: () => number,
		private readonly read: (() => Promise<Backlog>) | undefined,
		private readonly pollMs = 1000,
		private readonly clock: Clock = monotonicClock,
		/** The store admits under the bound itself, atomically across processes (Redis). */
		private readonly shared = false,
	) {}

	/** The limit to hand the store's `accept` for an event that counts (undefined: the store does not decide). */
	storeLimit(counts: boolean): number | undefined {
		return this.shared && counts ? this.limit : undefined;
	}

	/** The unfinished events as last known, with those being stored. */
	get count(): number {
		return Math.max(this.local(), this.readCount + this.acceptedSinceRead) + this.reserved;
	}

	/** Whether a new event must be refused now. */
	full(): boolean {
		return this.count >= this.limit;
	}

	/**
	 * False when the bound is reached; else true, and an event that will be processed (`counts`)
	 * takes its slot now, to be settled by `accepted` or `release`.
	 */
	reserve(counts: boolean): boolean {
		if (this.shared) {
			return true;
		}

		if (this.full()) {
			return false;
		}

		if (counts) {
			this.reserved++;
		}

		return true;
	}

	/** A reserved event was stored: it counts as accepted. */
	accepted(): void {
		this.reserved = Math.max(0, this.reserved - 1);
		this.acceptedSinceRead++;
	}

	/** A reserved event was not stored (or was a duplicate): its slot is free again. */
	release(): void {
		if (this.shared) {
			return;
		}

		this.reserved = Math.max(0, this.reserved - 1);
	}

	/** Reads the store's count now, then every `pollMs` until `stop` (a read still running is not doubled). */
	start(): void {
		if (!this.read || this.polling) {
			return;
		}

		const polling = new AbortController();
		this.polling = polling;
		void this.refresh();
		void (async () => {
			for (;;) {
				// Not a reason to keep the process running (as serve's other background checks).
				await this.clock.sleep(this.pollMs, polling.signal, {unref: true});
				if (polling.signal.aborted) {
					return;
				}

				void this.refresh();
			}
		})();
	}

	stop(): void {
		this.polling?.abort();
		this.polling = undefined;
	}

	private async refresh(): Promise<void> {
		if (this.reading || !this.read) {
			return;
		}

		this.reading = true;
		const pending = this.acceptedSinceRead;
		try {
			const backlog = await this.read();
			this.readCount = backlog.count;
			this.acceptedSinceRead -= pending;
		} catch {
			// The store's own health check reports it; the local count still applies.
		} finally {
			this.reading = false;
		}
	}
}
