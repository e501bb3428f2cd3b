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
import {toStoredEvent} from './mapping.js';
import {stepSaver} from './progress.js';

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
	/** Errors our processor ended a job with: their failure path already ran. */
	handled: WeakSet<Error>;
	/** Failure paths running for jobs BullMQ failed without the processor (stalled too often). */
	cleanups: Set<Promise<unknown>>;
	/** Jobs Redis lost while they ran here: BullMQ's complaints about them (no key, no lock) are expected for a while. */
	lostJobs: Set<string>;
};

/** Saves a job's steps into its progress; `lost` once Redis is found to have lost the job; `saved`: how many of the steps Redis has. */
function jobSteps(state: WorkerState, job: Job<NewEvent>, steps: StepRecord[]) {
	const record = {lost: false, saved: steps.length};
	const save = async () => {
		if (record.lost || record.saved === steps.length) {
			return;
		}

		const count = steps.length;
		if (await state.saveSteps(job, steps)) {
			record.saved = count;
		} else {
			// Redis lost the job (FLUSHALL, a restart without persistence). This replica holds
			// everything the answer needs: it goes on from its copy rather than apologising
			// for an answer it can still give; nothing of it can be stored any more.
			record.lost = true;
			state.lostJobs.add(job.id ?? '');
		}
	};

	return {record, save};
}

/** Runs the handler on a job: its steps saved as they happen, a waiting event delayed, a failure ended unrecoverable. */
function jobProcessor(options: WorkerOptions, state: WorkerState) {
	return async (job: Job<NewEvent>, token?: string, signal?: AbortSignal): Promise<JobResult | {status: 'logged' | 'ignored'}> => {
		if (job.data.status !== 'received') {
			// Recorded only: completing it at once keeps it listed (and its id held) like the others.
			return {status: job.data.status};
		}

		const event = toStoredEvent(job, 'active');
		const steps: StepRecord[] = [...event.steps];
		const {record, save} = jobSteps(state, job, steps);
		state.active++;
		try {
			const result = await options.handler({
				event,
				signal: signal ?? new AbortController().signal,
				async recordStep(step, recordOptions) {
					steps.push(step);
					// A step a resume can do again waits for the next one: both in one write.
					if (!recordOptions?.later) {
						await save();
					}
				},
				storeLost: () => record.lost,
			});
			// A step kept for a next one that never came is stored with the outcome.
			await save();
			if (result.status === 'waiting' && !record.lost) {
				// A transient failure: the job goes to BullMQ's delayed set until its next attempt (any
				// replica takes it then), its steps, the schedule among them, kept in its progress.
				const atMs = Date.parse(result.nextAttemptAt);
				await job.moveToDelayed(Number.isNaN(atMs) ? Date.now() : atMs, token);
				throw new DelayedError();
			}

			if (result.status === 'failed') {
				// Ends the job failed with the reason; never retried by BullMQ (the failure path ran).
				const error = new UnrecoverableError(result.error ?? 'failed');
				state.handled.add(error);
				throw error;
			}

			return result;
		} finally {
			state.active--;
			if (record.lost) {
				setTimeout(() => state.lostJobs.delete(job.id ?? ''), 60_000).unref();
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
		handled: new WeakSet<Error>(),
		cleanups: new Set<Promise<unknown>>(),
		lostJobs: new Set<string>(),
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
		if (lostJob && [...state.lostJobs].some(id => lostJob[1]?.endsWith(id))) {
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
