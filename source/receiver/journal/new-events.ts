/**
 * How the journal's writer stores a new event once it is admitted (journal.ts checks the bound and
 * the disk reserve first), and the counts of unfinished events the bound is checked against.
 *
 * With the write-ahead log (wal/, `serve`'s default): the event is acknowledged once the log has
 * flushed it, and moves into LMDB with the others of its moment; it is indexed, counted as queued
 * and offered to the runner once that move is committed. Without it (`flushBeforeAck: false`): a
 * plain put, acknowledged once its LMDB commit returns.
 */
import {asBinary} from 'lmdb';
import type {AcceptResult, BackendUnavailableError, NewEvent} from '../store/backend.js';
import {isoMs} from '../clock.js';
import type {IdIndex, PendingEntry} from './records/id-index.js';
import {newEventTuple, type EventTuple} from './records/record-codec.js';
import type {TimeKey} from './records/shapes.js';
import {recordBytes, type Stores} from './store.js';
import {WaitingEvent} from './wal/apply.js';
import type {WriteAhead} from './wal/open.js';

export type WriteHooks = {
	/** A write was made: the journal is writable. */
	succeeded(): void;
	/** A write failed: the journal is marked unwritable; gives the refusal the delivery gets. */
	failed(error: unknown): BackendUnavailableError;
	/** A queued event is in LMDB: the runner may take it. */
	offer(id: string): void;
};

export class NewEventWrites {
	/** Events in the queue (unfinished); counted at open and at each prune, kept up to date between. */
	queued = 0;
	/** Unfinished events being stored (not in LMDB yet): they count against the bound. */
	storing = 0;

	constructor(
		private readonly stores: Stores,
		private readonly index: IdIndex,
		private readonly writeAhead: WriteAhead | undefined,
		private readonly hooks: WriteHooks,
	) {
		writeAhead?.applier.listen({
			applied: events => {
				this.applied(events);
			},
			failed: error => {
				hooks.failed(error);
			},
		});
	}

	/** Stores an admitted event; one writer (the owner lock), and its id found in neither the index nor memory. */
	write(event: NewEvent): Promise<AcceptResult> {
		const parsed = isoMs(event.receivedAt);
		const ms = Number.isNaN(parsed) ? Date.now() : parsed;
		const key: TimeKey = [ms, event.id];
		const received = event.status === 'received';
		// The stored form straight from the event (record-codec.ts): one array literal, no record object.
		const tuple = newEventTuple(event, ms);
		const {writeAhead} = this;
		if (!writeAhead) {
			return this.writeToLmdb(key, tuple, received);
		}

		// Encoded once: the log's entry holds the bytes the move puts into LMDB.
		const record = recordBytes(this.stores, tuple);
		const acknowledged = writeAhead.log.append(ms, received, record).then(this.acknowledged, this.notWritten);
		const waiting = new WaitingEvent(writeAhead.log.lastSeq, key, asBinary(record), received);
		writeAhead.applier.add(waiting);
		// A duplicate arriving meanwhile is one once this one is acknowledged (it is on disk then),
		// and is refused as this one is if the log could not take it (a retry finds it moved in).
		waiting.entry = this.index.add(event.id, ms, acknowledged);
		if (received) {
			this.storing++;
		}

		return acknowledged;
	}

	/** A plain put, resolved by its batch's commit once that is flushed; the id follows into the index in the next batch. */
	private writeToLmdb(key: TimeKey, tuple: EventTuple, received: boolean): Promise<AcceptResult> {
		const {stores} = this;
		let committed: Promise<boolean>;
		try {
			committed = stores.events.put(key, tuple);
			if (received) {
				// The same commit as the event: its failure is the event's, reported below.
				stores.queue.put(key, true).catch(() => undefined);
			}
		} catch (error) {
			// Refused before any commit (a key LMDB cannot hold, say): fails as a failed commit does.
			return Promise.reject(this.hooks.failed(error));
		}

		if (received) {
			this.storing++;
		}

		const stored = committed.then(() => {
			this.hooks.succeeded();
			this.inLmdb(entry, key[1], received);
			return 'stored' as const;
		}, (error: unknown) => {
			if (received) {
				this.storing--;
			}

			this.index.settle(entry, false);
			return this.notWritten(error);
		});
		const entry = this.index.add(key[1], key[0], stored);
		return stored;
	}

	private readonly acknowledged = (): 'stored' => {
		this.hooks.succeeded();
		return 'stored';
	};

	private readonly notWritten = (error: unknown): never => {
		throw this.hooks.failed(error);
	};

	/** Events the log moved into LMDB. */
	private applied(events: WaitingEvent[]): void {
		for (const event of events) {
			this.inLmdb(event.entry, event.key[1], event.queued);
		}
	}

	/** An event is in LMDB: its id may go into the index and, when queued, it is counted and offered to the runner. */
	private inLmdb(entry: PendingEntry | undefined, id: string, queued: boolean): void {
		if (entry) {
			this.index.settle(entry, true);
		}

		if (queued) {
			this.storing--;
			this.queued++;
			this.hooks.offer(id);
		}
	}
}
