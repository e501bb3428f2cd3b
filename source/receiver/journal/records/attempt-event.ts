/**
 * One attempt of a journaled event: claim it, mark it processing, run the handler with its steps
 * recorded, record the end, release the claim. The journal (journal.ts) gives its state.
 */
import {errorMessage} from '../../../format/value.js';
import {StoreCannotRecordError, type JobHandler, type JobResult} from '../../store/backend.js';
import {endAttempt, runAttempt} from '../../answer/attempt.js';
import {nextAttemptOf} from '../../answer/retry-schedule.js';
import {claimEvent} from './claims.js';
import type {IdIndex} from './id-index.js';
import type {Holder} from '../open/liveness.js';
import {JournalError} from '../errors.js';
import {readEvent, stepsOf, toStored, writeEvent, type Stores} from '../store.js';
import type {EventRecord, TimeKey} from './shapes.js';

export type AttemptKind = 'resume' | 'replay';

export type AttemptOutcome = {outcome: 'done'; result: JobResult} | {outcome: 'busy'; holder: Holder} | {outcome: 'skipped'} | {outcome: 'unknown'} | {outcome: 'later'; atMs: number};

/** What an attempt reads and tells of the journal it runs in. */
export type AttemptJournal = {
	stores: Stores;
	index: IdIndex;
	holder: Holder;
	/** This process owns the journal (it counts the queue). */
	writer: boolean;
	/** When waiting events were last told to go at once (serve saw the platform again), ms. */
	wokenAt: number;
	/** A write failed: the journal is unwritable until the disk has room. */
	unwritable(error: unknown): void;
	/** The unfinished events' count changed: +1 queued again, -1 finished. */
	countQueued(delta: number): void;
};

/**
 * When a waiting event is next due, if not yet: its schedule is its last step, and it is left
 * alone (unclaimed) until then, unless the journal was woken since that step.
 */
function notDueUntil(journal: AttemptJournal, id: string, generation: number): number | undefined {
	const steps = stepsOf(journal.stores, id, generation);
	const next = nextAttemptOf(steps);
	const atMs = next === undefined ? Number.NaN : Date.parse(next);
	const woken = Date.parse(steps.at(-1)?.at ?? '') < journal.wokenAt;
	return atMs > Date.now() && !woken ? atMs : undefined;
}

/**
 * The event's record; a damaged one (journal-record-damaged) is never processed: on resume it
 * leaves the queue (events list names it, events recover skips it and keeps its id), while a
 * replay is refused with its id.
 */
function readOrDrop(journal: AttemptJournal, key: TimeKey | undefined, kind: AttemptKind): ReturnType<typeof readEvent> | 'damaged' {
	try {
		return readEvent(journal.stores, key);
	} catch (error) {
		if (kind === 'replay' || !key || !(error instanceof JournalError) || error.code !== 'journal-record-damaged') {
			throw error;
		}

		if (journal.writer && journal.stores.queue.doesExist(key)) {
			journal.stores.queue.remove(key).catch(() => undefined);
			journal.countQueued(-1);
		}

		return 'damaged';
	}
}

/**
 * Why an attempt does not start, before the claim: a damaged record, an unknown id, a waiting
 * event not due yet (resume), or a disk below its reserve (thrown); undefined when it may start.
 */
function notStarting(journal: AttemptJournal, id: string, located: TimeKey | undefined, kind: AttemptKind): AttemptOutcome | undefined {
	const {stores} = journal;
	const before = readOrDrop(journal, located, kind);
	if (before === 'damaged') {
		return {outcome: 'skipped'};
	}

	if (!before) {
		return {outcome: 'unknown'};
	}

	const laterMs = kind === 'resume' && before.record.status === 'waiting' ? notDueUntil(journal, id, before.record.generation) : undefined;
	if (laterMs !== undefined) {
		return {outcome: 'later', atMs: laterMs};
	}

	if (stores.space && !stores.space.admits(0)) {
		// A new attempt waits while the disk is below its reserve: nothing is written to the platform.
		throw new StoreCannotRecordError(stores.space.refused().message);
	}

	return undefined;
}

/** Marks the claimed event processing (a replay opens a new generation), queued again if it had finished. */
async function markProcessing(journal: AttemptJournal, key: TimeKey, found: EventRecord, kind: AttemptKind): Promise<EventRecord> {
	const {stores} = journal;
	const record: EventRecord = {...found, status: 'processing', attempts: found.attempts + 1, updatedAt: new Date().toISOString()};
	if (kind === 'replay') {
		record.generation++;
		delete record.error;
		delete record.finishedAt;
		delete record.durationMs;
	}

	// Queued again in the same commit (a replay of a finished event): if this process dies, the
	// event is unfinished and the next serve, or the running one, takes over its claim.
	const requeued = !stores.queue.doesExist(key);
	if (requeued) {
		stores.queue.put(key, true).catch(() => undefined);
	}

	await writeEvent(stores, key, record);
	if (requeued && journal.writer) {
		journal.countQueued(1);
	}

	return record;
}

/** Runs the handler on the event, each step it takes recorded in the journal. */
async function runRecorded(journal: AttemptJournal, id: string, record: EventRecord, handler: JobHandler, signal: AbortSignal): ReturnType<typeof runAttempt> {
	const {stores} = journal;
	const steps = stepsOf(stores, id, record.generation);
	let next = steps.length;
	return runAttempt(handler, {
		event: toStored(record, steps),
		signal,
		recordStep: async step => {
			try {
				await stores.steps.put([id, record.generation, next++], step);
			} catch (error) {
				journal.unwritable(error);
				throw new StoreCannotRecordError(`the event journal in ${stores.directory} could not record step ${step.name}: ${errorMessage(error)}`, {cause: error});
			}
		},
	});
}

/** One attempt: claim, mark processing, run the handler with its steps recorded, record the end, release. */
export async function attemptEvent(journal: AttemptJournal, id: string, handler: JobHandler, signal: AbortSignal, kind: AttemptKind): Promise<AttemptOutcome> {
	const {stores} = journal;
	const located = journal.index.locate(id);
	const refused = notStarting(journal, id, located, kind);
	if (refused) {
		return refused;
	}

	const claim = await claimEvent(stores, id, journal.holder);
	if (!claim.ok) {
		return {outcome: 'busy', holder: claim.holder};
	}

	const found = readEvent(stores, located);
	if (!found || (kind === 'resume' && found.record.status !== 'received' && found.record.status !== 'processing' && found.record.status !== 'waiting')) {
		// Finished meanwhile (a replay elsewhere), or pruned.
		await stores.claims.remove(id);
		return found ? {outcome: 'skipped'} : {outcome: 'unknown'};
	}

	const {key} = found;
	const record = await markProcessing(journal, key, found.record, kind);
	const {result, end} = await runRecorded(journal, id, record, handler, signal);
	const final = endAttempt({...record}, end);
	// One commit with the final state, whose failure is reported by the caller. A waiting event
	// stays queued (unfinished): the runner takes it again when its next attempt is due.
	if (result.status !== 'waiting') {
		stores.queue.remove(key).catch(() => undefined);
	}

	stores.claims.remove(id).catch(() => undefined);
	await writeEvent(stores, key, final);
	if (result.status !== 'waiting') {
		journal.countQueued(-1);
	}

	return {outcome: 'done', result};
}
