/**
 * New events move from the write-ahead log (log.ts) into LMDB, many per commit: at once when none
 * went in for `everyMs`, else `everyMs` after the last move began, so under load LMDB commits about
 * 1000 / `everyMs` times a second whatever the rate of deliveries. Each move writes, in the same
 * commit, the highest sequence number it holds (`wal-applied` in `marks`); the log's entries up to
 * it may then be written over.
 *
 * A move that fails (the disk reserve, a failed commit) keeps its events for the next try, after
 * `retryMs`. Reads that must see every acknowledged event, and the log when it must start a lap,
 * ask for a move at once (`applyAll`).
 */
import type {asBinary} from 'lmdb';
import type {PendingEntry} from '../records/id-index.js';
import type {EventTuple} from '../records/record-codec.js';
import type {TimeKey} from '../records/shapes.js';
import type {Stores} from '../store.js';

export const appliedKey = 'wal-applied';

type Binary = ReturnType<typeof asBinary>;

/** What a move puts: the stored tuple, or its bytes as the `events` database encodes it (`asBinary`). */
export type MovedValue = EventTuple | Binary;

/** An acknowledged event on its way into LMDB: `value`, the bytes of its record its log entry holds. */
export class WaitingEvent {
	constructor(
		readonly seq: number,
		readonly key: TimeKey,
		readonly value: Binary,
		readonly queued: boolean,
	) {}

	/** Its exactly-once entry (id-index.ts), set as it is queued. */
	entry: PendingEntry | undefined;
}

export type ApplyListener = {
	/** A move committed (flushed) these events. */
	applied(events: WaitingEvent[]): void;
	/** A move failed; its events wait for the next. */
	failed(error: unknown): void;
};

type Waiter = {seq: number; resolve: () => void; reject: (error: unknown) => void};

/**
 * Puts `events` into LMDB (and the queued ones into the queue), with `last`, the highest sequence
 * number among them, as `wal-applied`: all in the current batch of writes, one commit, whose
 * outcome the returned promise gives.
 */
export function putMoved(stores: Stores, events: Iterable<{key: TimeKey; value: MovedValue; queued: boolean}>, last: number): Promise<boolean> {
	for (const event of events) {
		// lmdb-js writes the bytes of a Binary as they are: the database's own encoding of the tuple.
		stores.events.put(event.key, event.value as EventTuple).catch(() => undefined);
		if (event.queued) {
			stores.queue.put(event.key, true).catch(() => undefined);
		}
	}

	return stores.marks.put(appliedKey, last);
}

export class LogApplier {
	/** The highest sequence number LMDB holds, flushed. */
	appliedSeq: number;
	private waiting: WaitingEvent[] = [];
	private moving = false;
	/** The highest sequence number of the move under way. */
	private movingSeq = 0;
	private lastMoveAt = Number.NEGATIVE_INFINITY;
	private timer: NodeJS.Timeout | undefined;
	private waiters: Waiter[] = [];
	private listener: ApplyListener | undefined;
	private stopped = false;

	constructor(private readonly stores: Stores, appliedSeq: number, private readonly everyMs = 20, private readonly retryMs = 1000) {
		this.appliedSeq = appliedSeq;
	}

	listen(listener: ApplyListener): void {
		this.listener = listener;
	}

	/** Queues an acknowledged event for a move (the listener hears when it is in; a failed move is tried again). */
	add(event: WaitingEvent): void {
		this.waiting.push(event);
		if (!this.moving && !this.timer) {
			this.schedule(Math.max(0, this.lastMoveAt + this.everyMs - Date.now()));
		}
	}

	/** Resolves once LMDB holds every event queued so far; rejects when a move for them fails. */
	async applyAll(): Promise<void> {
		const target = this.waiting.at(-1)?.seq ?? (this.moving ? this.movingSeq : undefined);
		if (target === undefined) {
			return;
		}

		await new Promise<void>((resolve, reject) => {
			this.waiters.push({seq: target, resolve, reject});
			if (!this.moving) {
				this.schedule(0);
			}
		});
	}

	/** Moves what waits, and stops moving. */
	async stop(): Promise<void> {
		try {
			await this.applyAll();
		} finally {
			this.stopped = true;
			clearTimeout(this.timer);
		}
	}

	private schedule(delayMs: number): void {
		clearTimeout(this.timer);
		this.timer = setTimeout(() => {
			this.timer = undefined;
			this.moveNow();
		}, delayMs);
	}

	private moveNow(): void {
		const events = this.waiting;
		if (this.moving || this.stopped || events.length === 0) {
			return;
		}

		const last = (events.at(-1) as WaitingEvent).seq;
		this.waiting = [];
		this.moving = true;
		this.movingSeq = last;
		this.lastMoveAt = Date.now();
		let committed: Promise<boolean>;
		try {
			committed = putMoved(this.stores, events, last);
		} catch (error) {
			// eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what was thrown, as the failed commit it stands for
			committed = Promise.reject(error);
		}

		committed.then(() => {
			this.moving = false;
			this.appliedSeq = last;
			this.listener?.applied(events);
			this.settleWaiters();
			this.next(false);
		}, (error: unknown) => {
			this.moving = false;
			this.waiting = [...events, ...this.waiting];
			this.listener?.failed(error);
			for (const waiter of this.waiters.splice(0)) {
				waiter.reject(error);
			}

			this.next(true);
		});
	}

	private settleWaiters(): void {
		this.waiters = this.waiters.filter(waiter => {
			if (waiter.seq <= this.appliedSeq) {
				waiter.resolve();
				return false;
			}

			return true;
		});
	}

	private next(failed: boolean): void {
		if (this.waiting.length === 0 || this.stopped) {
			return;
		}

		this.schedule(this.waiters.length > 0 ? 0 : (failed ? this.retryMs : Math.max(0, this.lastMoveAt + this.everyMs - Date.now())));
	}
}
