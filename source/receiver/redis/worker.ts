/**
 * The processing side of the Redis backend: one BullMQ worker per replica with `concurrency` slots
 * running the processor (processor.ts), the failure path of a job BullMQ failed on its own, and
 * the stop. A job whose replica died is taken over by BullMQ's stalled-job check and resumes from
 * its last step.
 */
import {hostname} from 'node:os';
import {type Job, Worker} from 'bullmq';
import {testTimers} from '../../config/test-timers.js';
import type {RedisClient} from './connection.js';
import type {NewEvent, StepRecord} from '../store/backend.js';
import {defaultAbortGraceMs, settlesWithin} from '../drain.js';
import {toStoredEvent} from './mapping.js';
import {stepSaver} from './progress.js';
import {jobFinisher, type Keep} from './finished.js';
import {jobProcessor, type ProcessorOptions, type WorkerState} from './processor.js';

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

export type WorkerOptions = ProcessorOptions & {
	connection: RedisClient;
	queueName: string;
	prefix: string;
	concurrency: number;
	lockDurationMs?: number;
	stalledIntervalMs?: number;
	/** How long finished jobs are kept (the queue's `removeOnComplete`). */
	keep: Keep;
	/** How long an id stays held, ms: a job the count bound removes sooner leaves a hold of its own (finished.ts). */
	holdIdMs: number;
	/** Shown as the holder of this replica's jobs (`events replay` of a busy event names it). */
	name?: string;
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
	// The queue's key prefix, as BullMQ's `toKey('')` gives it: a job's hash is this and its id.
	const keyPrefix = `${options.prefix}:${options.queueName}:`;
	const state: WorkerState = {
		active: 0,
		saveSteps: stepSaver(options.connection, jobId => `${keyPrefix}${jobId}`),
		finish: jobFinisher(options.connection, keyPrefix, options.keep, options.holdIdMs),
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
