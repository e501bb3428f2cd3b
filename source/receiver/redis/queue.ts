/**
 * The queue side of the Redis backend: store (accept), read (list/get/stats) and re-queue (replay).
 * Every replica and every `events` command use it; only `serve` also runs a worker (worker.ts).
 */
import {type Job, type JobState as BullState, Queue} from 'bullmq';
import type {RedisClient} from './connection.js';
import {
	type AcceptResult,
	type BackendStats,
	type Backlog,
	BackendUnavailableError,
	type ListFilter,
	type NewEvent,
	type ReplayResult,
	type StoredEvent,
	type WaitingSummary,
} from '../store/backend.js';
import {errorMessage} from '../../format/value.js';
import {type JobState, jobIdOf, progressOf, toStoredEvent} from './mapping.js';
import {matchesFilter} from '../store/list-filter.js';
import {nearIds} from '../intake/near.js';
import {admitter} from './admission.js';
import {eventRecorder} from './record.js';
import {replicaName} from './worker.js';

export type EventQueueOptions = {
	producer: RedisClient;
	queueName: string;
	prefix: string;
	/** How long finished jobs (and so their ids, the exactly-once keys) are kept, ms. */
	keepMs: number;
	/** How many finished jobs of each outcome (completed, failed) are kept at most. */
	keepCount: number;
	/**
	 * How long an id stays held after `accept`, ms, whatever `keepCount` removes: a key of its own
	 * per event id (BullMQ's de-duplication key `<prefix>:<queue>:de:<job id>`, expiring; releases
	 * before it kept `…:id:<job id>`, still honoured), so the count bound never frees an id inside
	 * the exactly-once window.
	 */
	holdIdMs: number;
	/** The masked URL, for messages. */
	maskedUrl: string;
	/**
	 * Acknowledge only once this many replicas confirm the event (`WAIT n timeout` after the writes);
	 * fewer in time → `BackendUnavailableError` (503). 0 or undefined: off.
	 */
	waitReplicas?: number;
	/** WAIT's timeout, ms (default 1000). */
	waitTimeoutMs?: number;
	/** Named as the processor of the events recorded only (default `host:pid`). */
	replicaName?: string;
};

export const defaultWaitTimeoutMs = 1000;

/** The states `list` reads, each with the state it maps from. */
const listedStates: BullState[] = ['active', 'waiting', 'prioritized', 'delayed', 'completed', 'failed'];

export type EventQueue = {
	queue: Queue<NewEvent>;
	/** Stores the event unless its id is held, or (with `limit`) the cluster's unfinished events reached it. */
	accept(event: NewEvent, limit?: number): Promise<AcceptResult>;
	list(filter: ListFilter): Promise<StoredEvent[]>;
	get(id: string): Promise<StoredEvent | undefined>;
	near(id: string): Promise<string[]>;
	replay(id: string): Promise<ReplayResult>;
	/** Whether the id is still held: by its job, or by the key that holds it 24 h. */
	holds(id: string): Promise<boolean>;
	stats(): Promise<BackendStats>;
	backlog(): Promise<Backlog>;
	waiting(): Promise<WaitingSummary>;
	close(): Promise<void>;
};

export function createEventQueue(options: EventQueueOptions): EventQueue {
	const keep = {age: Math.ceil(options.keepMs / 1000), count: options.keepCount};
	const queue = new Queue<NewEvent>(options.queueName, {
		connection: options.producer,
		prefix: options.prefix,
		// The answer has its own failure path (apology, logs FAILED): BullMQ never retries it.
		defaultJobOptions: {attempts: 1, removeOnComplete: keep, removeOnFail: keep},
	});
	// BullMQ re-emits connection errors; the producer's own listener reports them.
	queue.on('error', () => undefined);
	const admission = admitter(options.producer, queue);
	const record = eventRecorder(options.producer, queue);
	const replica = options.replicaName ?? replicaName();
	const jobOptions = (jobId: string) => {
		const hold = admission.holdOptions(jobId, options.holdIdMs);
		// As BullMQ's add stores them (`de` is its stored name of `deduplication`).
		return {de: hold.deduplication, jobId, removeOnComplete: keep, removeOnFail: keep, attempts: 1};
	};

	async function jobsIn(state: BullState): Promise<Array<{job: Job<NewEvent>; state: JobState}>> {
		const jobs: Array<Job<NewEvent> | undefined> = await queue.getJobs([state], 0, -1);
		// A job removed between reading the range and the job itself comes back empty.
		return jobs.filter((job): job is Job<NewEvent> => job?.data !== undefined).map(job => ({job, state}));
	}

	async function allJobs(): Promise<Array<{job: Job<NewEvent>; state: JobState}>> {
		const groups = await Promise.all(listedStates.map(async state => jobsIn(state)));
		// A job moving between states while we read may show up twice: keep its first sighting.
		const seen = new Set<string>();
		return groups.flat().filter(({job}) => {
			const id = job.id ?? '';
			if (seen.has(id)) {
				return false;
			}

			seen.add(id);
			return true;
		});
	}

	/**
	 * With `waitReplicas`: WAIT until that many replicas have every write this connection made (the
	 * job and its id), or 503 when they do not confirm within the timeout.
	 */
	async function confirmed(eventId: string): Promise<void> {
		const wanted = options.waitReplicas ?? 0;
		if (wanted <= 0) {
			return;
		}

		const timeoutMs = options.waitTimeoutMs ?? defaultWaitTimeoutMs;
		const replicas = Number(await options.producer.call('WAIT', String(wanted), String(timeoutMs)));
		if (!(replicas >= wanted)) {
			throw new BackendUnavailableError('backend-unavailable', `Redis at ${options.maskedUrl} stored event ${eventId}, but only ${String(replicas)} of ${String(wanted)} replicas confirmed it within ${String(timeoutMs)} ms (--redis-wait-replicas)`);
		}
	}

	async function near(id: string): Promise<string[]> {
		return nearIds(id, (await allJobs()).map(({job}) => job.data.id));
	}

	return {
		queue,
		async accept(event, limit) {
			const jobId = jobIdOf(event.id);
			try {
				if (event.status !== 'received') {
					// Recorded only: stored finished in one script with its exactly-once check (record.ts).
					const outcome = await record(jobId, event, {opts: jobOptions(jobId), holdIdMs: options.holdIdMs, keep, replica});
					await confirmed(event.id);
					return outcome;
				}

				// The job id is the exactly-once key, held twice: by the job while it is kept, and by a
				// key of its own for 24 h (the count bound may remove the job sooner). Two replicas
				// racing on one id are both admitted; BullMQ keeps one job, so it runs once.
				const admitted = await admission.admit(jobId, limit);
				if (admitted === 'full') {
					return 'full';
				}

				if (admitted === 'duplicate') {
					// A redelivery after a WAIT that timed out is acknowledged only once replicas confirm.
					await confirmed(event.id);
					return 'duplicate';
				}

				try {
					// The add also holds the id 24 h (a de-duplication key with a TTL, in the add's script).
					await queue.add(event.event, event, admission.holdOptions(jobId, options.holdIdMs));
				} finally {
					if (limit !== undefined) {
						admission.release(jobId);
					}
				}

				await confirmed(event.id);
				return 'stored';
			} catch (error) {
				if (error instanceof BackendUnavailableError) {
					throw error;
				}

				throw new BackendUnavailableError('backend-unavailable', `Redis at ${options.maskedUrl} could not store event ${event.id}: ${errorMessage(error)}`, {cause: error});
			}
		},
		async list(filter) {
			const events = (await allJobs())
				.map(({job, state}) => toStoredEvent(job, state))
				.filter(event => matchesFilter(event, filter))
				.sort((a, b) => b.receivedAt.localeCompare(a.receivedAt) || b.id.localeCompare(a.id));
			return filter.limit === undefined ? events : events.slice(0, filter.limit);
		},
		async get(id) {
			const job = await queue.getJob(jobIdOf(id));
			if (job?.data === undefined) {
				return undefined;
			}

			return toStoredEvent(job, await job.getState());
		},
		near,
		holds: async id => admission.holds(jobIdOf(id)),
		async replay(id) {
			const job = await queue.getJob(jobIdOf(id));
			if (job?.data === undefined) {
				return {outcome: 'unknown', near: await near(id)};
			}

			const state = await job.getState();
			if (state === 'active') {
				return {outcome: 'busy', holder: job.processedBy ?? 'another replica'};
			}

			if (state === 'completed' || state === 'failed') {
				// A new attempt starts with no steps: the answer is written again from the start.
				await job.updateProgress(progressOf([]));
				await job.retry(state);
			}

			return {outcome: 'queued'};
		},
		async stats() {
			const counts = await queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active', 'completed', 'failed');
			const count = (name: string) => counts[name] ?? 0;
			const waiting = count('waiting') + count('prioritized') + count('delayed');
			const queueFigures = {waiting, active: count('active'), completed: count('completed'), failed: count('failed')};
			return {count: waiting + queueFigures.active + queueFigures.completed + queueFigures.failed, queue: queueFigures};
		},
		async backlog() {
			const counts = await queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active');
			const count = Object.values(counts).reduce((sum, value) => sum + value, 0);
			// The waiting list's oldest job is at its end.
			const [oldest] = await queue.getJobs(['waiting'], -1, -1);
			return oldest?.data === undefined ? {count} : {count, oldestReceivedAt: oldest.data.receivedAt};
		},
		async waiting() {
			// Delayed jobs are the waiting events (moved there with their schedule); the set is ordered by due time.
			const count = await queue.getDelayedCount();
			const [first] = await queue.getJobs(['delayed'], 0, 0, true);
			const next = first?.data === undefined ? undefined : toStoredEvent(first, 'delayed').nextAttemptAt;
			return next === undefined ? {count} : {count, nextAttemptAt: next};
		},
		async close() {
			await queue.close();
		},
	};
}
