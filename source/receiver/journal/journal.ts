/**
 * The journal backend: verified events in LMDB, committed before the 200 (writes of one
 * event-loop turn share one commit: group commit), processed from the journal's queue with their
 * steps recorded, resumed after a crash, kept for the retention window.
 */
import {errorMessage} from '../../format/value.js';
import {
	BackendUnavailableError,
	type AcceptResult,
	type BackendStats,
	type EventBackend,
	type JobHandler,
	type JobResult,
	type ListFilter,
	type NewEvent,
	type ReplayResult,
	type StoredEvent,
} from '../backend.js';
import {endAttempt, runAttempt} from '../attempt.js';
import {isoMs} from '../clock.js';
import {matchesFilter} from '../list-filter.js';
import {nearIds} from '../near.js';
import {claimEvent} from './claims.js';
import {IdIndex} from './id-index.js';
import {dropToken, type Holder} from './liveness.js';
import {prune, type PruneResult} from './retention.js';
import {JobRunner} from './runner.js';
import {diskBytes, readEvent, stepsOf, toStored, type EventRecord, type Stores, type TimeKey} from './store.js';

export type JournalSettings = {
	maxAgeMs: number;
	maxEntries: number;
	/** Event ids waiting in memory at most; beyond, they wait on disk only. */
	memoryLimit: number;
	pruneIntervalMs: number;
	abortGraceMs: number;
	/** This process owns the journal (`serve`): it writes new events and the index. */
	writer: boolean;
	/** How often accepted ids are written into the exactly-once index, ms. */
	indexFlushMs: number;
	/** Makes `accept` fail as a journal that cannot be written does (tests). */
	failWrites?: () => boolean;
	/** Runs on close (the owner lock's release). */
	onClose?: () => Promise<void>;
};

type AttemptOutcome = {outcome: 'done'; result: JobResult} | {outcome: 'busy'; holder: Holder} | {outcome: 'skipped'} | {outcome: 'unknown'};

export class JournalBackend implements EventBackend {
	readonly kind = 'journal' as const;
	private readonly index: IdIndex;
	private runner: JobRunner | undefined;
	private timer: NodeJS.Timeout | undefined;
	private closed = false;

	constructor(
		private readonly stores: Stores,
		private readonly holder: Holder,
		private readonly settings: JournalSettings,
	) {
		this.index = new IdIndex(stores, settings.writer);
	}

	/** No `async`: the hot path creates one promise of its own (the commit's is shared by its batch). */
	accept(event: NewEvent): Promise<AcceptResult> {
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
			scan: (limit, skip) => this.scanQueue(limit, skip),
			run: async (id, signal) => {
				const attempt = await this.attempt(id, handler, signal, 'resume');
				return attempt.outcome === 'busy' ? 'busy' : 'done';
			},
		}, Math.max(1, options.concurrency), this.settings.memoryLimit, this.settings.abortGraceMs);
		await this.index.flush();
		this.index.startFlushing(this.settings.indexFlushMs, 10_000);
		await this.prune();
		this.runner.pump();
		this.timer = setInterval(() => {
			void this.prune().catch(() => undefined);
			this.runner?.rescan();
		}, this.settings.pruneIntervalMs);
		this.timer.unref();
	}

	async stop(drainMs: number): Promise<{cutOff: number}> {
		clearInterval(this.timer);
		const cutOff = await this.runner?.stop(drainMs) ?? 0;
		return {cutOff};
	}

	active(): number {
		return this.runner?.active ?? 0;
	}

	async list(filter: ListFilter): Promise<StoredEvent[]> {
		const found: StoredEvent[] = [];
		const limit = filter.limit ?? Number.POSITIVE_INFINITY;
		for (const {key, value} of this.stores.events.getRange({reverse: true})) {
			if (found.length >= limit || (filter.sinceMs !== undefined && key[0] < filter.sinceMs)) {
				break;
			}

			if (!matchesFilter(value, filter)) {
				continue;
			}

			found.push(toStored(value, stepsOf(this.stores, value.id, value.generation)));
		}

		return Promise.resolve(found);
	}

	async get(id: string): Promise<StoredEvent | undefined> {
		const found = readEvent(this.stores, this.index.locate(id));
		return Promise.resolve(found ? toStored(found.record, stepsOf(this.stores, id, found.record.generation)) : undefined);
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

	async near(id: string): Promise<string[]> {
		// Keys only: the ids are in them, no event is read.
		return Promise.resolve(nearIds(id, Array.from(this.stores.events.getKeys({}), key => key[1])));
	}

	async stats(): Promise<BackendStats> {
		return Promise.resolve({count: this.stores.events.getCount(), bytes: diskBytes(this.stores.directory)});
	}

	async close(): Promise<void> {
		if (this.closed) {
			return;
		}

		this.closed = true;
		clearInterval(this.timer);
		await this.runner?.stop(0);
		await this.index.stop();
		await this.settings.onClose?.();
		dropToken(this.holder.token);
		await this.stores.root.close();
	}

	/** Prunes by age and count (also called at start and every `pruneIntervalMs`). */
	async prune(now = Date.now()): Promise<PruneResult> {
		// Every id dropped by the count bound must be in the index first.
		await this.index.flush();
		return prune(this.stores, {maxAgeMs: this.settings.maxAgeMs, maxEntries: this.settings.maxEntries, now}, id => this.index.pendingOf(id) !== undefined || (this.runner?.holds(id) ?? false));
	}

	private store(event: NewEvent): Promise<AcceptResult> {
		if (this.closed || this.settings.failWrites?.()) {
			return Promise.reject(new BackendUnavailableError('backend-unavailable', `the event journal in ${this.stores.directory} cannot be written`));
		}

		const {stores} = this;
		const parsed = isoMs(event.receivedAt);
		const ms = Number.isNaN(parsed) ? Date.now() : parsed;
		const key: TimeKey = [ms, event.id];
		const received = event.status === 'received';
		// One literal with every field the hot path writes (no spread): one hidden class, and one
		// msgpackr record structure, for every stored event.
		const record: EventRecord = {
			id: event.id,
			event: event.event,
			receivedAt: event.receivedAt,
			body: event.body,
			headers: event.headers,
			chatId: event.chatId,
			status: event.status,
			note: event.note,
			updatedAt: event.receivedAt,
			attempts: 0,
			generation: 0,
		};
		// One writer (the owner lock), and the id was found in neither the index nor memory: a plain
		// put, resolved by its batch's commit once that is flushed. The id follows into the index in
		// the next batch.
		let committed: Promise<boolean>;
		try {
			committed = stores.events.put(key, record);
			if (received) {
				void stores.queue.put(key, true);
			}
		} catch (error) {
			// Refused before any commit (a key LMDB cannot hold, say): fails as a failed commit does.
			return Promise.reject(this.writeFailed(error));
		}

		const stored = committed.then(() => {
			this.index.settle(entry, true);
			if (received) {
				this.runner?.offer(event.id);
			}

			return 'stored' as const;
		}, (error: unknown) => {
			this.index.settle(entry, false);
			throw this.writeFailed(error);
		});
		const entry = this.index.add(event.id, ms, stored);
		return stored;
	}

	private writeFailed(error: unknown): BackendUnavailableError {
		return new BackendUnavailableError('backend-unavailable', `the event journal in ${this.stores.directory} could not be written: ${errorMessage(error)}`, {cause: error});
	}

	private scanQueue(limit: number, skip: (id: string) => boolean): string[] {
		const found: string[] = [];
		for (const key of this.stores.queue.getKeys({})) {
			if (found.length >= limit) {
				break;
			}

			if (!skip(key[1])) {
				found.push(key[1]);
			}
		}

		return found;
	}

	/** One attempt: claim, mark processing, run the handler with its steps recorded, record the end, release. */
	private async attempt(id: string, handler: JobHandler, signal: AbortSignal, kind: 'resume' | 'replay'): Promise<AttemptOutcome> {
		const {stores} = this;
		const located = this.index.locate(id);
		if (!readEvent(stores, located)) {
			return {outcome: 'unknown'};
		}

		const claim = await claimEvent(stores, id, this.holder);
		if (!claim.ok) {
			return {outcome: 'busy', holder: claim.holder};
		}

		const found = readEvent(stores, located);
		if (!found || (kind === 'resume' && found.record.status !== 'received' && found.record.status !== 'processing')) {
			// Finished meanwhile (a replay elsewhere), or pruned.
			await stores.claims.remove(id);
			return found ? {outcome: 'skipped'} : {outcome: 'unknown'};
		}

		const {key} = found;
		const record: EventRecord = {...found.record, status: 'processing', attempts: found.record.attempts + 1, updatedAt: new Date().toISOString()};
		if (kind === 'replay') {
			record.generation++;
			delete record.error;
			delete record.finishedAt;
			delete record.durationMs;
		}

		await stores.events.put(key, record);
		const steps = stepsOf(stores, id, record.generation);
		let next = steps.length;
		const {result, end} = await runAttempt(handler, {
			event: toStored(record, steps),
			signal,
			async recordStep(step) {
				await stores.steps.put([id, record.generation, next++], step);
			},
		});
		const final = endAttempt({...record}, end);
		void stores.queue.remove(key);
		void stores.claims.remove(id);
		await stores.events.put(key, final);
		return {outcome: 'done', result};
	}
}
