/**
 * The exactly-once index of the journal: event id → received time, in the `seen` database.
 *
 * Event ids are random, so writing one into a B-tree dirties a page of its own; doing that in the
 * commit every 200 waits for doubled the journal's cost per event. So the hot path commits the
 * event alone (its time-ordered key appends to the `events` tree) and the ids follow in batches,
 * one commit per `flushMs`:
 *
 * - ids accepted but not yet in `seen` are held in memory (`pending`), so this process answers
 *   duplicates from memory first;
 * - the `marks` database keeps `unindexed-from`: every event whose key time is before it has its id
 *   in `seen`. An event keyed earlier than the mark (a clock set back) lowers the mark in its own
 *   commit;
 * - after a crash, the next `serve` takes the events from the mark on that lack their entry as
 *   pending when it opens the journal, and indexes them in its first batch;
 * - other processes (`events show`, `replay`) find an id in `seen`, else among the events from the
 *   mark on (a short range: at most one flush interval of events).
 */
import {IdFilter} from './id-filter.js';
import type {Stores} from '../store.js';
import type {TimeKey} from './shapes.js';

/** The `marks` key of the time from which events may lack their `seen` entry. */
export const markKey = 'unindexed-from';

export type PendingEntry = {id: string; ms: number; committed: boolean; stored: Promise<unknown>};

export class IdIndex {
	private readonly pending = new Map<string, PendingEntry>();
	/**
	 * The writer's filter of every id in `seen` or accepted since it opened: an id it has not is
	 * new without a read of `seen`. Undefined for other processes (they add no ids).
	 */
	private filter: IdFilter | undefined;
	/** The mark as this process last wrote it (committed or not); undefined: every event may lack its id. */
	private mark: number | undefined;
	/** The mark as its last committed write left it on disk (a failed write leaves it where it was). */
	private durable: number | undefined;
	private flushing: Promise<void> | undefined;
	private timer: NodeJS.Timeout | undefined;
	private maxWaiting = Number.POSITIVE_INFINITY;

	/**
	 * `writer`: this process owns the journal (`serve`); only the writer flushes. The writer takes
	 * the events a process that died left unindexed as pending at once, so they count as delivered
	 * from the first `accept` on, and its first flush indexes them.
	 */
	constructor(private readonly stores: Stores, private readonly writer: boolean) {
		this.mark = stores.marks.get(markKey);
		this.durable = this.mark;
		if (writer) {
			this.filter = this.filledFilter();
			this.collectUnindexed();
		}
	}

	/** Ids the writer's filter took in since it was built (undefined for other processes). */
	get filterAdditions(): number | undefined {
		return this.filter?.added;
	}

	/**
	 * Builds the writer's filter again from the ids in `seen` and those waiting, once it has taken in
	 * at least twice as many ids as these number (and `minimum`): retention removed the others from
	 * `seen`, but a filter forgets nothing, and one filled past its size answers "maybe" for every
	 * id, each then read from `seen`. So a `serve` that runs for weeks rebuilds it about once per
	 * doubling; one rebuild reads every key of `seen` (0.45 s for a million ids here), in one
	 * turn, so no id is added meanwhile. Called after each prune. Returns whether it rebuilt.
	 */
	refreshFilter(minimum = 200_000): boolean {
		if (!this.filter) {
			return false;
		}

		const live = this.stores.seen.getCount() + this.pending.size;
		if (this.filter.added < Math.max(2 * live, minimum)) {
			return false;
		}

		this.filter = this.filledFilter();
		return true;
	}

	/**
	 * Whether `id` is certainly new: the writer's filter holds every id indexed or pending, so an id
	 * it has not was neither (false: look further, with `pendingOf` and `indexed`). One probe of
	 * the filter instead of a lookup in a map of every id of the last flush interval.
	 */
	certainlyNew(id: string): boolean {
		return this.filter !== undefined && !this.filter.has(id);
	}

	/** The pending entry of `id` in this process (accepted here, not yet indexed on disk). */
	pendingOf(id: string): PendingEntry | undefined {
		return this.pending.get(id);
	}

	/** Whether `id` was indexed on disk (by this process or an earlier one). */
	indexed(id: string): boolean {
		if (this.filter && !this.filter.has(id)) {
			return false;
		}

		return this.stores.seen.get(id) !== undefined;
	}

	/**
	 * Records an accepted event whose write (`stored`: resolves once its commit is flushed, rejects
	 * when it fails) is under way; call in the same event-loop turn as that write, so a lowered mark
	 * commits with it, and call `settle` with the returned entry when the commit ends.
	 */
	add(id: string, ms: number, stored: Promise<unknown>): PendingEntry {
		const entry: PendingEntry = {id, ms, committed: false, stored};
		this.pending.set(id, entry);
		this.filter?.add(id);
		// The mark on disk may be the committed one or one still being written: below either, lower
		// it (never above the committed one, in case the pending write fails).
		const highest = Math.max(this.mark ?? Number.NEGATIVE_INFINITY, this.durable ?? Number.NEGATIVE_INFINITY);
		if (ms < highest) {
			// It commits with the event: if it fails, so did the event, which then needs no mark.
			this.writeMark(Math.min(ms, this.mark ?? ms, this.durable ?? ms)).catch(() => undefined);
		}

		if (this.pending.size >= this.maxWaiting && !this.flushing) {
			void this.flush();
		}

		return entry;
	}

	/** The commit of an added entry ended: stored (it may go into the index), or not (the id was never accepted). */
	settle(entry: PendingEntry, stored: boolean): void {
		if (stored) {
			entry.committed = true;
		} else if (this.pending.get(entry.id) === entry) {
			this.pending.delete(entry.id);
		}
	}

	/** Where the event `id` is kept, when the journal holds it. */
	locate(id: string): TimeKey | undefined {
		const ms = this.pending.get(id)?.ms ?? this.stores.seen.get(id);
		if (ms !== undefined) {
			return [ms, id];
		}

		for (const key of this.stores.events.getKeys({start: [this.currentMark() ?? 0, '']})) {
			if (key[1] === id) {
				return key;
			}
		}

		return undefined;
	}

	/** Writes the committed pending ids into `seen` in one batch (one commit) and moves the mark past them. */
	async flush(): Promise<void> {
		if (!this.writer) {
			return;
		}

		while (this.flushing) {
			await this.flushing;
		}

		// One pass: the committed entries go into the batch; the earliest of the others (not committed
		// yet) bounds the next mark, as an event keyed earlier may still lack its entry.
		const batch: PendingEntry[] = [];
		let latest = Number.NEGATIVE_INFINITY;
		let earliestWaiting = Number.POSITIVE_INFINITY;
		for (const entry of this.pending.values()) {
			if (entry.committed) {
				batch.push(entry);
				latest = Math.max(latest, entry.ms);
			} else {
				earliestWaiting = Math.min(earliestWaiting, entry.ms);
			}
		}

		if (batch.length === 0 && this.mark !== undefined) {
			return;
		}

		// Their failure is the batch's (one commit), handled below. The puts of one commit give back
		// its one promise: one catch for each promise given, not one per id.
		let last: Promise<boolean> | undefined;
		for (const entry of batch) {
			const written = this.stores.seen.put(entry.id, entry.ms);
			if (written !== last) {
				written.catch(() => undefined);
				last = written;
			}
		}

		// The mark after the batch: the earliest time still waiting, else the latest time of the batch
		// (events at that very millisecond may follow). Set before the commit, so an event accepted
		// meanwhile and keyed earlier lowers it again.
		const next = Math.min(Number.isFinite(latest) ? latest : (this.mark ?? Date.now()), earliestWaiting);
		this.flushing = this.writeMark(next).then(() => {
			for (const entry of batch) {
				if (this.pending.get(entry.id) === entry) {
					this.pending.delete(entry.id);
				}
			}
		}, () => {
			// Not written: the batch stays pending (and the mark on disk where it was) for the next try.
		}).finally(() => {
			this.flushing = undefined;
		});
		await this.flushing;
	}

	/** Flushes every `intervalMs`, and at once when `maxWaiting` ids wait. */
	startFlushing(intervalMs: number, maxWaiting: number): void {
		this.maxWaiting = maxWaiting;
		clearInterval(this.timer);
		this.timer = setInterval(() => {
			void this.flush();
		}, intervalMs);
		this.timer.unref();
	}

	/** Stops the timer and writes what waits. */
	async stop(): Promise<void> {
		clearInterval(this.timer);
		this.timer = undefined;
		await this.flush();
	}

	/** A filter of every id in `seen` and every id waiting to go there (ids in a batch being committed wait till it is). */
	private filledFilter(): IdFilter {
		const filter = new IdFilter();
		for (const id of this.stores.seen.getKeys({})) {
			filter.add(id);
		}

		for (const id of this.pending.keys()) {
			filter.add(id);
		}

		return filter;
	}

	/** The events from the mark on that lack their index entry (left by a process that died) join the pending ids. */
	private collectUnindexed(): void {
		const done = Promise.resolve();
		for (const key of this.stores.events.getKeys({start: [this.mark ?? 0, '']})) {
			if (!this.pending.has(key[1]) && this.stores.seen.get(key[1]) === undefined) {
				this.pending.set(key[1], {id: key[1], ms: key[0], committed: true, stored: done});
				this.filter?.add(key[1]);
			}
		}
	}

	/** Writes the mark (in the current batch of writes); `durable` follows once it is committed. */
	private async writeMark(value: number): Promise<void> {
		this.mark = value;
		await this.stores.marks.put(markKey, value);
		this.durable = value;
	}

	private currentMark(): number | undefined {
		// Another process may have moved the mark since this one read it.
		return this.stores.marks.get(markKey) ?? this.mark;
	}
}
