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
import {isoMs} from '../clock.js';
import {WriteRecovery} from './open/health.js';
import {IdIndex} from './records/id-index.js';
import {dropToken, type Holder} from './open/liveness.js';
import {prune, type PruneResult} from './open/retention.js';
import {JobRunner} from './runner.js';
import {unwritableReason} from './open/writable.js';
import {newEventTuple} from './records/record-codec.js';
import {scanQueue} from './records/queries.js';
import type {Stores} from './store.js';
import type {TimeKey} from './records/shapes.js';
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
	/** Events in the queue (unfinished); counted at open and at each prune, kept up to date between. */
	private queued: number;
	/** Unfinished events being stored (their commit not yet done): they count against the bound. */
	private storing = 0;

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
		this.queued = settings.writer ? stores.queue.getCount() : 0;
	}

	/** No `async`: the hot path creates one promise of its own (the commit's is shared by its batch). */
	accept(event: NewEvent): Promise<AcceptResult> {
		if (this.index.certainlyNew(event.id)) {
			return this.store(event);
		}

		const pending = this.index.pendingOf(event.id);
		if (pending) {
			// Accepted here before: a duplicate once that commit stands (a failed one fails this too).
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
		await this.index.stop();
		await this.settings.onClose?.();
		dropToken(this.holder.token);
		await this.stores.root.close();
		await this.settings.onClosed?.({writeFailed: this.recovery.health.hasFailed});
	}

	/** Prunes by age and count (also called at start and every `pruneIntervalMs`). */
	async prune(now = Date.now()): Promise<PruneResult> {
		// Every id dropped by the count bound must be in the index first.
		await this.index.flush();
		this.queued = this.stores.queue.getCount();
		const result = await prune(this.stores, {maxAgeMs: this.settings.maxAgeMs, maxEntries: this.settings.maxEntries, now}, id => this.index.pendingOf(id) !== undefined || (this.runner?.holds(id) ?? false));
		// Ids retention dropped from the index leave the exactly-once filter when it is rebuilt.
		this.index.refreshFilter();
		return result;
	}

	private store(event: NewEvent): Promise<AcceptResult> {
		if (this.closed || this.settings.failWrites?.()) {
			return Promise.reject(new BackendUnavailableError('backend-unavailable', `the event journal in ${this.stores.directory} cannot be written`));
		}

		if (event.status === 'received' && this.queued + this.storing >= this.settings.maxEntries) {
			// Retention never removes an unfinished event: past the count bound, the platform retries later.
			// Those being stored count too, so deliveries arriving together never pass the bound.
			return Promise.reject(new BackendUnavailableError('backend-busy', `the event journal in ${this.stores.directory} holds ${this.queued + this.storing} unfinished events, its bound`));
		}

		const {stores} = this;
		if (stores.space && !stores.space.admits(event.body.length)) {
			// Below the disk reserve: refused before any write, so no commit can fail for space.
			const refused = stores.space.refused();
			this.unwritable(refused);
			return Promise.reject(this.writeFailed(refused));
		}

		const parsed = isoMs(event.receivedAt);
		const ms = Number.isNaN(parsed) ? Date.now() : parsed;
		const key: TimeKey = [ms, event.id];
		const received = event.status === 'received';
		// One writer (the owner lock), and the id was found in neither the index nor memory: a plain
		// put, resolved by its batch's commit once that is flushed. The id follows into the index in
		// the next batch.
		let committed: Promise<boolean>;
		try {
			// The stored form straight from the event (record-codec.ts): one array literal, no record object.
			committed = stores.events.put(key, newEventTuple(event, ms));
			if (received) {
				// The same commit as the event: its failure is the event's, reported below.
				stores.queue.put(key, true).catch(() => undefined);
			}
		} catch (error) {
			// Refused before any commit (a key LMDB cannot hold, say): fails as a failed commit does.
			this.unwritable(error);
			return Promise.reject(this.writeFailed(error));
		}

		if (received) {
			this.storing++;
		}

		const stored = committed.then(() => {
			this.recovery.health.succeeded();
			this.index.settle(entry, true);
			if (received) {
				this.storing--;
				this.queued++;
				this.runner?.offer(event.id);
			}

			return 'stored' as const;
		}, (error: unknown) => {
			if (received) {
				this.storing--;
			}

			this.unwritable(error);
			this.index.settle(entry, false);
			throw this.writeFailed(error);
		});
		const entry = this.index.add(event.id, ms, stored);
		return stored;
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
				this.queued = Math.max(0, this.queued + delta);
			},
		}, id, handler, signal, kind);
	}
}
