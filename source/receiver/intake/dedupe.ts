/**
 * The exactly-once guard of the receiver: remembers the ids of events already accepted so a
 * redelivery (the platform retries on 3xx/429/5xx or no answer, up to five times with backoff)
 * is answered 200 and not processed again.
 *
 * Retention: an id is kept for `ttlMs` (default 24 h) after it was accepted, and at most
 * `maxEntries` ids (default 100 000) are kept. Whichever bound is hit first applies: past
 * 100 000 ids within a day the oldest are forgotten first, so memory stays bounded (about
 * 100 bytes an id, ~10 MB at the cap). Ids live in memory only; a restarted receiver starts
 * with an empty store, so a redelivery that straddles a restart is processed again.
 */
export type EventIdStoreOptions = {
	/** How long an id is remembered, ms. Default 24 h. */
	ttlMs?: number;
	/** Most ids remembered; the oldest go first beyond it. Default 100 000. */
	maxEntries?: number;
	/** Clock, ms; for tests. */
	now?: () => number;
};

export const defaultDedupeTtlMs = 24 * 60 * 60 * 1000;
export const defaultDedupeMaxEntries = 100_000;

export class EventIdStore {
	readonly ttlMs: number;
	readonly maxEntries: number;
	/** Id → when it was accepted. A Map keeps insertion order, which is acceptance order. */
	private readonly seen = new Map<string, number>();
	private readonly now: () => number;
	private lastPrune = Number.NEGATIVE_INFINITY;

	constructor(options: EventIdStoreOptions = {}) {
		this.ttlMs = options.ttlMs ?? defaultDedupeTtlMs;
		this.maxEntries = Math.max(1, options.maxEntries ?? defaultDedupeMaxEntries);
		this.now = options.now ?? Date.now;
	}

	get size(): number {
		return this.seen.size;
	}

	has(id: string): boolean {
		const at = this.seen.get(id);
		return at !== undefined && this.now() - at < this.ttlMs;
	}

	/**
	 * Records the id and returns true when it is new; returns false (and changes nothing) when it
	 * was already accepted within the retention window. Check and record happen in one call, so two
	 * deliveries of the same id racing each other cannot both be accepted.
	 */
	add(id: string): boolean {
		const now = this.now();
		// Pruning walks from the oldest id and stops at the first one still valid; doing it at most
		// once a second (or once per ttl, if shorter) keeps the hot path short, and the size cap
		// below bounds memory in between.
		if (now - this.lastPrune >= Math.min(1000, this.ttlMs)) {
			this.lastPrune = now;
			this.prune(now);
		}

		const at = this.seen.get(id);
		if (at !== undefined && now - at < this.ttlMs) {
			return false;
		}

		// An expired id may still sit in the map; re-inserting moves it to the newest end.
		this.seen.delete(id);
		this.seen.set(id, now);
		while (this.seen.size > this.maxEntries) {
			const oldest = this.seen.keys().next();
			if (oldest.done) {
				break;
			}

			this.seen.delete(oldest.value);
		}

		return true;
	}

	/** Forgets an id, e.g. when an accepted event could not be queued and must be redelivered. */
	delete(id: string): void {
		this.seen.delete(id);
	}

	/** Drops expired ids from the oldest end; stops at the first one still valid. */
	private prune(now: number): void {
		const cutoff = now - this.ttlMs;
		for (const [id, at] of this.seen) {
			if (at > cutoff) {
				break;
			}

			this.seen.delete(id);
		}
	}
}
