/**
 * The processing side of the Redis backend: one BullMQ worker per replica with `concurrency` slots.
 * Steps go into the job progress as they happen, so the replica that takes over a job after its
 * owner died (BullMQ's stalled-job check) resumes from the last step.
 */
import {hostname} from 'node:os';
import {DelayedError, type Job, UnrecoverableError, Worker} from 'bullmq';
import {testTimers} from '../../config/test-timers.js';
import type {RedisClient} from './connection.js';
import type {JobHandler, JobResult, NewEvent, StepRecord} from '../store/backend.js';
import {defaultAbortGraceMs, settlesWithin} from '../drain.js';
import {progressOf, toStoredEvent} from './mapping.js';
import {stepSaver} from './progress.js';
import {type FinishJob, jobFinisher, type Keep} from './finished.js';

/**
 * The lock a replica holds on each running job, and how often replicas look for jobs whose lock
 * ran out. A live replica renews its locks every half lock (7.5 s). A replica killed with SIGKILL
 * stops renewing: its locks expire within 15 s, and the next stalled check after that (every 10 s,
 * run by every replica) puts the job back in the queue, where any replica takes it at once. A job
 * of a dead replica is so taken over 10–25 s after the kill (about 30 s at the very worst with a
 * loaded Redis).
 */
export const defaultLockDurationMs = 15_000;
export const defaultStalledIntervalMs = 10_000;

/** How many times one job may be taken over after its replica died before it counts as failed. */
export const maxTakeovers = 2;

/** How long a stop with no job left waits for BullMQ to hang up its connections (milliseconds when Redis is up). */
const defaultHangUpMs = 2000;

export type WorkerOptions = {
	connection: RedisClient;
	queueName: string;
	prefix: string;
	handler: JobHandler;
	concurrency: number;
	lockDurationMs?: number;
	stalledIntervalMs?: number;
	/** How long finished jobs are kept (the queue's `removeOnComplete`). */
	keep: Keep;
	/** Shown as the holder of this replica's jobs (`events replay` of a busy event names it). */
	name?: string;
	onError?: (error: Error) => void;
	/** BullMQ's limiter (global to the queue): at most `max` jobs started per `durationMs`. */
	limiter?: {max: number; durationMs: number};
	/** After the drain deadline, how long cut-off jobs get for their failure path, ms (default 31 000). */
	abortGraceMs?: number;
	/** How long a stop with no job left waits for BullMQ to hang up, ms (default 2000). */
	hangUpMs?: number;
};

export type EventWorker = {
	active(): number;
	stop(drainMs: number): Promise<{cutOff: number}>;
};

export function replicaName(): string {
	return `${hostname()}:${process.pid}`;
}

/** The failure step a job that BullMQ failed on its own gets, so the answer runs its failure path. */
function failingStep(reason: string): StepRecord {
	return {name: 'failing', at: new Date().toISOString(), error: reason};
}

/** What a replica's worker keeps while it runs, shared by its processor, its listeners and its stop. */
type WorkerState = {
	/** Jobs running here (the processor's and the failure paths' below). */
	active: number;
	saveSteps: ReturnType<typeof stepSaver>;
	finish: FinishJob;
	/** Errors our processor ended a job with: their failure path already ran. */
	handled: WeakSet<Error>;
	/** Failure paths running for jobs BullMQ failed without the processor (stalled too often). */
	cleanups: Set<Promise<unknown>>;
	/**
	 * Jobs this replica let go while BullMQ still tracked them: finished here (finished.ts), or lost
	 * by Redis while they ran. BullMQ's complaints about them (no key, no lock) are expected for a while.
	 */
	letGo: Set<string>;
};

/**
 * A job's steps: `save` writes them into its progress; `record.lost` once Redis is found to have
 * lost the job; `record.saved`: how many of the steps Redis has; `pending` the progress still to write.
 */
function jobSteps(state: WorkerState, job: Job<NewEvent>, list: StepRecord[]) {
	const record = {lost: false, saved: list.length};
	const save = async () => {
		if (record.lost || record.saved === list.length) {
			return;
		}

		const count = list.length;
		if (await state.saveSteps(job, list)) {
			record.saved = count;
		} else {
			// Redis lost the job (FLUSHALL, a restart without persistence). This replica holds
			// everything the answer needs: it goes on from its copy rather than apologising
			// for an answer it can still give; nothing of it can be stored any more.
			record.lost = true;
			state.letGo.add(job.id ?? '');
		}
	};

	const pending = () => ({progress: record.saved === list.length ? undefined : progressOf(list)});
	return {list, record, save, pending};
}

/** What a job ends with: the handler's result, or the status of an event recorded only. */
type Outcome = JobResult | {status: 'logged' | 'ignored'};

/**
 * Ends a job the handler finished: the outcome and the steps not written yet stored with the move
 * to completed in one script (finished.ts). BullMQ is then told the job was moved by hand (its
 * `DelayedError`, as after a move to delayed): it does nothing more with it but fetch the next.
 */
async function finishHere(state: WorkerState, options: WorkerOptions, job: Job<NewEvent>, token: string | undefined, result: Outcome, steps: ReturnType<typeof jobSteps>): Promise<Outcome> {
	if (token === undefined) {
		// Not run by BullMQ's worker loop (no lock token): BullMQ's own completion.
		await steps.save();
		return result;
	}

	const id = job.id ?? '';
	if (!steps.record.lost) {
		state.letGo.add(id);
		setTimeout(() => state.letGo.delete(id), 60_000).unref();
		let finished: boolean;
		try {
			finished = await state.finish(job, token, result, steps.pending().progress);
		} catch {
			// Redis did not answer: BullMQ's own completion, which waits for the connection to come
			// back (a script run whose reply was lost leaves it no lock: its complaint is expected).
			await steps.save();
			return result;
		}

		if (!finished) {
			// Another replica took the job over (its lock ran out here): that one ends it, from the steps
			// stored. As BullMQ's own completion says it.
			options.onError?.(new Error(`Missing lock for job ${id}. moveToFinished`));
		}
	}

	throw new DelayedError();
}

/** Runs the handler on a job: its steps saved as they happen, a waiting event delayed, a failure ended unrecoverable. */
function jobProcessor(options: WorkerOptions, state: WorkerState) {
	return async (job: Job<NewEvent>, token?: string, signal?: AbortSignal): Promise<Outcome> => {
		if (job.data.status !== 'received') {
			// Recorded only: completing it at once keeps it listed (and its id held) like the others.
			return finishHere(state, options, job, token, {status: job.data.status}, jobSteps(state, job, []));
		}

		const event = toStoredEvent(job, 'active');
		const steps = jobSteps(state, job, [...event.steps]);
		const {record, save, list} = steps;
		state.active++;
		try {
			const result = await options.handler({
				event,
				signal: signal ?? new AbortController().signal,
				async recordStep(step, recordOptions) {
					list.push(step);
					// A step a resume can do again waits for the next one: both in one write.
					if (!recordOptions?.later) {
						await save();
					}
				},
				storeLost: () => record.lost,
			});
			if (result.status === 'waiting' && !record.lost) {
				// A transient failure: the job goes to BullMQ's delayed set until its next attempt (any
				// replica takes it then), its steps, the schedule among them, kept in its progress.
				await save();
				const atMs = Date.parse(result.nextAttemptAt);
				await job.moveToDelayed(Number.isNaN(atMs) ? Date.now() : atMs, token);
				throw new DelayedError();
			}

			if (result.status === 'failed') {
				// Ends the job failed with the reason; never retried by BullMQ (the failure path ran).
				await save();
				const error = new UnrecoverableError(result.error ?? 'failed');
				state.handled.add(error);
				throw error;
			}

			// A step kept for a next one that never came is stored with the outcome.
			return await finishHere(state, options, job, token, result, steps);
		} finally {
			state.active--;
			if (record.lost) {
				setTimeout(() => state.letGo.delete(job.id ?? ''), 60_000).unref();
			}
		}
	};
}

/**
 * A job BullMQ failed on its own (taken over more than `maxTakeovers` times: "job stalled more
 * than allowable limit") never reached the processor's failure path: run it here, from the
 * steps the dead replicas recorded, so its open logs are set FAILED and the apology written.
 */
function failurePathRunner(options: WorkerOptions, state: WorkerState) {
	return (job: Job<NewEvent> | undefined, error: Error): void => {
		if (job?.data === undefined || job.data.status !== 'received' || state.handled.has(error)) {
			return;
		}

		const event = toStoredEvent(job, 'failed');
		const steps: StepRecord[] = [...event.steps];
		if (!steps.some(step => step.name === 'failing')) {
			steps.push(failingStep(error.message));
		}

		event.steps = [...steps];
		state.active++;
		const cleanup = options.handler({
			event,
			signal: new AbortController().signal,
			async recordStep(step) {
				steps.push(step);
				await state.saveSteps(job, steps);
			},
		}).catch((failure: unknown) => {
			options.onError?.(failure instanceof Error ? failure : new Error(String(failure)));
		}).finally(() => {
			state.active--;
			state.cleanups.delete(cleanup);
		});
		state.cleanups.add(cleanup);
	};
}

/** Stops the worker within `drainMs`, then cuts off what still runs; how many were cut off. */
function drainer(worker: Worker<NewEvent>, options: WorkerOptions, state: WorkerState) {
	return async (drainMs: number): Promise<{cutOff: number}> => {
		// Nothing running: the stop waits only for the hang-up, and not at all when Redis is not
		// connected (a Redis that cannot be reached would otherwise hold it for the whole drain time).
		const idle = state.active === 0 && state.cleanups.size === 0;
		const hangUpMs = options.connection.status === 'ready' ? options.hangUpMs ?? defaultHangUpMs : 0;
		const closing = worker.close().then(async () => Promise.all(state.cleanups));
		if (await settlesWithin(closing, idle ? hangUpMs : drainMs)) {
			return {cutOff: 0};
		}

		if (idle) {
			return {cutOff: 0};
		}

		// The drain deadline passed: abort the rest; their failure path ends them failed, within the
		// grace (a short hang-up when none was cut off). Past it the close is left unfinished:
		// BullMQ's close waits for its blocking connection to end, and a connection reconnecting to
		// a Redis that cannot be reached never ends, so a stop during an outage would not return.
		const cutOff = state.active;
		worker.cancelAllJobs('the replica is shutting down');
		await settlesWithin(closing, cutOff > 0 || state.cleanups.size > 0 ? options.abortGraceMs ?? defaultAbortGraceMs : options.hangUpMs ?? defaultHangUpMs);
		return {cutOff};
	};
}

export async function startWorker(options: WorkerOptions): Promise<EventWorker> {
	const state: WorkerState = {
		active: 0,
		saveSteps: stepSaver(options.connection, jobId => `${options.prefix}:${options.queueName}:${jobId}`),
		finish: jobFinisher(options.connection, `${options.prefix}:${options.queueName}:`, options.keep),
		handled: new WeakSet<Error>(),
		cleanups: new Set<Promise<unknown>>(),
		letGo: new Set<string>(),
	};
	const worker = new Worker<NewEvent>(options.queueName, jobProcessor(options, state), {
		connection: options.connection,
		prefix: options.prefix,
		concurrency: options.concurrency,
		name: options.name ?? replicaName(),
		lockDuration: options.lockDurationMs ?? testTimers()?.lockDurationMs ?? defaultLockDurationMs,
		stalledInterval: options.stalledIntervalMs ?? testTimers()?.stalledIntervalMs ?? defaultStalledIntervalMs,
		maxStalledCount: maxTakeovers,
		autorun: false,
		...(options.limiter ? {limiter: {max: options.limiter.max, duration: options.limiter.durationMs}} : {}),
	});
	worker.on('error', error => {
		const lostJob = /^(?:Missing (?:key|lock) for job|could not renew lock for job) (\S+?)\.?(?: |$)/.exec(error.message);
		if (lostJob && [...state.letGo].some(id => lostJob[1]?.endsWith(id))) {
			return;
		}

		options.onError?.(error);
	});
	worker.on('failed', failurePathRunner(options, state));
	void worker.run().catch((error: unknown) => {
		options.onError?.(error instanceof Error ? error : new Error(String(error)));
	});
	await worker.waitUntilReady();

	let stopping: Promise<{cutOff: number}> | undefined;
	const drainAndClose = drainer(worker, options, state);
	return {
		active: () => state.active,
		async stop(drainMs) {
			// Once: the backend's close stops again after serve's drain, and gets the first outcome.
			stopping ??= drainAndClose(drainMs);
			return stopping;
		},
	};
}
