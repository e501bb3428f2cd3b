/**
 * The journal backend: verified events in LMDB, committed before the 200 (writes of one
 * event-loop turn share one commit: group commit), processed from the journal's queue with their
 * steps recorded, resumed after a crash, kept for the retention window. Its reads are in
 * reads.ts, its settings in settings.ts.
 */
import {errorMessage} from '../../format/value.js';
import {
	BackendUnavailableError,
	type AcceptResult,
	type BackendHealth,
	type EventBackend,
	type JobHandler,
	type NewEvent,
	type ReplayResult,
	type WaitingSummary,
} from '../store/backend.js';
import {WriteRecovery} from './open/health.js';
import {IdIndex} from './records/id-index.js';
import {dropToken, type Holder} from './open/liveness.js';
import {prune, type PruneResult} from './open/retention.js';
import {JobRunner} from './runner.js';
import {unwritableReason} from './open/writable.js';
import {NewEventWrites} from './new-events.js';
import {scanQueue} from './records/queries.js';
import type {Stores} from './store.js';
import {attemptEvent, type AttemptKind, type AttemptOutcome} from './records/attempt-event.js';
import {JournalReads} from './reads.js';
import type {JournalSettings} from './settings.js';

export type {JournalSettings} from './settings.js';

export class JournalBackend extends JournalReads implements EventBackend {
	readonly kind = 'journal' as const;
	/** Write failures and the recovery from them (health.ts). */
	private readonly recovery: WriteRecovery;
	private runner: JobRunner | undefined;
	private timer: NodeJS.Timeout | undefined;
	private rescanTimer: NodeJS.Timeout | undefined;
	private closed = false;
	/** When `wake` last made every waiting event due (ms): a wait recorded before it is over. */
	private wokenAt = 0;
	/** New events' writes, and the counts of unfinished events (new-events.ts). */
	private readonly writes: NewEventWrites;
	private readonly writeAhead: JournalSettings['writeAhead'];

	constructor(
		stores: Stores,
		private readonly holder: Holder,
		private readonly settings: JournalSettings,
	) {
		super(stores, new IdIndex(stores, settings.writer));
		this.recovery = new WriteRecovery({
			checkMs: settings.spaceCheckMs ?? 1000,
			blocked: () => stores.space?.shortage() !== undefined || settings.failWrites?.() === true,
			pause: () => this.runner?.pause(),
			// Attempts paused for the full disk go on from their last recorded step.
			resume: () => this.runner?.rescan(),
		});
		this.writeAhead = settings.writeAhead;
		this.writes = new NewEventWrites(stores, this.index, this.writeAhead, {
			succeeded: () => {
				this.recovery.health.succeeded();
			},
			failed: error => {
				this.unwritable(error);
				return this.writeFailed(error);
			},
			offer: id => {
				this.runner?.offer(id);
			},
		});
		this.writes.queued = settings.writer ? stores.queue.getCount() : 0;
	}

	/** No `async`: the hot path creates one promise of its own (the commit's is shared by its batch). */
	accept(event: NewEvent): Promise<AcceptResult> {
		if (this.index.certainlyNew(event.id)) {
			return this.store(event);
		}

		const pending = this.index.pendingOf(event.id);
		if (pending) {
			// Accepted here before: a duplicate once that one is stored (its failure fails this too).
			return pending.stored.then(() => 'duplicate' as const);
		}

		if (this.index.indexed(event.id)) {
			return Promise.resolve('duplicate');
		}

		return this.store(event);
	}

	async start(handler: JobHandler, options: {concurrency: number}): Promise<void> {
		this.runner = new JobRunner({
			scan: (limit, skip) => scanQueue(this.stores, limit, skip),
			run: async (id, signal) => {
				try {
					const attempt = await this.attempt(id, handler, signal, 'resume');
					if (attempt.outcome === 'later') {
						return {laterMs: attempt.atMs};
					}

					if (attempt.outcome === 'done' && attempt.result.status === 'waiting') {
						return {laterMs: Date.parse(attempt.result.nextAttemptAt)};
					}

					return attempt.outcome === 'busy' ? 'busy' : 'done';
				} catch (error) {
					// A journal write of the attempt failed; the event stays queued for the next scan.
					this.unwritable(error);
					throw error;
				}
			},
		}, Math.max(1, options.concurrency), this.settings.memoryLimit, this.settings.abortGraceMs);
		await this.index.flush();
		this.index.startFlushing(this.settings.indexFlushMs, 10_000);
		await this.prune().catch((error: unknown) => {
			this.unwritable(error);
		});
		this.runner.pump();
		this.timer = setInterval(() => {
			this.prune().catch((error: unknown) => {
				this.unwritable(error);
			});
		}, this.settings.pruneIntervalMs);
		this.timer.unref();
		// Events held by another process (a replay, a serve before this one) are looked at again
		// this often: the claim of one that died is taken over within this time.
		this.rescanTimer = setInterval(() => {
			this.runner?.rescan();
		}, this.settings.claimCheckMs);
		this.rescanTimer.unref();
	}

	async stop(drainMs: number): Promise<{cutOff: number}> {
		clearInterval(this.timer);
		clearInterval(this.rescanTimer);
		const cutOff = await this.runner?.stop(drainMs) ?? 0;
		return {cutOff};
	}

	active(): number {
		return this.runner?.active ?? 0;
	}

	async replay(id: string, handler: JobHandler): Promise<ReplayResult> {
		await this.caughtUp();
		const attempt = await this.attempt(id, handler, new AbortController().signal, 'replay');
		switch (attempt.outcome) {
			case 'done': {
				return attempt;
			}

			case 'busy': {
				return {outcome: 'busy', holder: `pid ${attempt.holder.pid}`};
			}

			default: {
				return {outcome: 'unknown', near: await this.near(id)};
			}
		}
	}

	async health(): Promise<BackendHealth> {
		const writes = this.recovery.health.current();
		const reason = this.closed
			? 'the journal is closed'
			: this.stores.space?.shortage() ?? (writes.writable ? undefined : `the event journal in ${this.stores.directory} could not be written since ${writes.since}: ${writes.reason ?? 'a write failed'}`)
				?? (this.settings.failWrites?.() ? `the event journal in ${this.stores.directory} cannot be written` : unwritableReason(this.stores.directory));
		return Promise.resolve(reason === undefined ? {ok: true} : {ok: false, reason});
	}

	async wake(): Promise<void> {
		this.wokenAt = Date.now();
		this.runner?.wakeAll();
		return Promise.resolve();
	}

	async waiting(): Promise<WaitingSummary> {
		return Promise.resolve(this.runner?.waitingSummary() ?? {count: 0});
	}

	async close(): Promise<void> {
		if (this.closed) {
			return;
		}

		this.closed = true;
		this.recovery.stop();
		clearInterval(this.timer);
		clearInterval(this.rescanTimer);
		await this.runner?.stop(0);
		// What the write-ahead log holds and LMDB does not is moved now, or by the next open.
		await this.writeAhead?.applier.stop().catch((error: unknown) => {
			this.unwritable(error);
		});
		await this.writeAhead?.log.close();
		await this.index.stop();
		await this.settings.onClose?.();
		dropToken(this.holder.token);
		await this.stores.root.close();
		await this.settings.onClosed?.({writeFailed: this.recovery.health.hasFailed});
	}

	/** Prunes by age and count (also called at start and every `pruneIntervalMs`). */
	async prune(now = Date.now()): Promise<PruneResult> {
		await this.caughtUp();
		// Every id dropped by the count bound must be in the index first.
		await this.index.flush();
		this.writes.queued = this.stores.queue.getCount();
		const result = await prune(this.stores, {maxAgeMs: this.settings.maxAgeMs, maxEntries: this.settings.maxEntries, now}, id => this.index.pendingOf(id) !== undefined || (this.runner?.holds(id) ?? false));
		// Ids retention dropped from the index leave the exactly-once filter when it is rebuilt.
		this.index.refreshFilter();
		return result;
	}

	private store(event: NewEvent): Promise<AcceptResult> {
		if (this.closed || this.settings.failWrites?.()) {
			return Promise.reject(new BackendUnavailableError('backend-unavailable', `the event journal in ${this.stores.directory} cannot be written`));
		}

		const {writes} = this;
		if (event.status === 'received' && writes.queued + writes.storing >= this.settings.maxEntries) {
			// Retention never removes an unfinished event: past the count bound, the platform retries later.
			// Those being stored count too, so deliveries arriving together never pass the bound.
			return Promise.reject(new BackendUnavailableError('backend-busy', `the event journal in ${this.stores.directory} holds ${writes.queued + writes.storing} unfinished events, its bound`));
		}

		const {space} = this.stores;
		if (space && !space.admits(event.body.length)) {
			// Below the disk reserve: refused before any write, so no commit can fail for space.
			const refused = space.refused();
			this.unwritable(refused);
			return Promise.reject(this.writeFailed(refused));
		}

		return this.writes.write(event);
	}

	/** Every acknowledged event in LMDB before a read (a failed move leaves the read to what LMDB holds). */
	protected override async caughtUp(): Promise<void> {
		await this.writeAhead?.applier.applyAll().catch(() => undefined);
	}

	/** A write failed (or was refused for the disk reserve): unwritable until the disk has room again. */
	private unwritable(error: unknown): void {
		this.recovery.failed(error);
	}

	private writeFailed(error: unknown): BackendUnavailableError {
		return new BackendUnavailableError('backend-unavailable', `the event journal in ${this.stores.directory} could not be written: ${errorMessage(error)}`, {cause: error});
	}

	/** One attempt of an event (attempt-event.ts), with this journal's state. */
	private async attempt(id: string, handler: JobHandler, signal: AbortSignal, kind: AttemptKind): Promise<AttemptOutcome> {
		return attemptEvent({
			stores: this.stores,
			index: this.index,
			holder: this.holder,
			writer: this.settings.writer,
			wokenAt: this.wokenAt,
			unwritable: error => {
				this.unwritable(error);
			},
			countQueued: delta => {
				this.writes.queued = Math.max(0, this.writes.queued + delta);
			},
		}, id, handler, signal, kind);
	}
}
