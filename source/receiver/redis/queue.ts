/**
 * The queue side of the Redis backend: store (accept), read (list/get/stats) and re-queue (replay).
 * Every replica and every `events` command use it; only `serve` also runs a worker (worker.ts).
 */
import {Queue} from 'bullmq';
import type {RedisClient} from './connection.js';
import {type AcceptResult, BackendUnavailableError, type NewEvent} from '../store/backend.js';
import {errorMessage} from '../../format/value.js';
import {jobIdOf} from './mapping.js';
import {admitter} from './admission.js';
import {eventRecorder} from './record.js';
import {replicaName} from './worker.js';
import {queueFigures, queueReads, type QueueFigures, type QueueReads} from './queue-reads.js';

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

export type EventQueue = QueueReads & QueueFigures & {
	queue: Queue<NewEvent>;
	/** Stores the event unless its id is held, or (with `limit`) the cluster's unfinished events reached it. */
	accept(event: NewEvent, limit?: number): Promise<AcceptResult>;
	/** Whether the id is still held: by its job, or by the key that holds it 24 h. */
	holds(id: string): Promise<boolean>;
	close(): Promise<void>;
};

type Keep = {age: number; count: number};

/**
 * The queue's `accept`: stores the event unless its id is held (or the cluster is full), and with
 * `waitReplicas` acknowledges only once the replicas confirm it.
 */
function eventAccepter(options: EventQueueOptions, queue: Queue<NewEvent>, admission: ReturnType<typeof admitter>, keep: Keep): EventQueue['accept'] {
	const record = eventRecorder(options.producer, queue);
	const replica = options.replicaName ?? replicaName();
	const jobOptions = (jobId: string) => {
		const hold = admission.holdOptions(jobId, options.holdIdMs);
		// As BullMQ's add stores them (`de` is its stored name of `deduplication`).
		return {de: hold.deduplication, jobId, removeOnComplete: keep, removeOnFail: keep, attempts: 1};
	};

	return async (event, limit) => {
		const jobId = jobIdOf(event.id);
		try {
			if (event.status !== 'received') {
				// Recorded only: stored finished in one script with its exactly-once check (record.ts).
				const outcome = await record(jobId, event, {opts: jobOptions(jobId), holdIdMs: options.holdIdMs, keep, replica});
				await confirmed(options, event.id);
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
				await confirmed(options, event.id);
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

			await confirmed(options, event.id);
			return 'stored';
		} catch (error) {
			if (error instanceof BackendUnavailableError) {
				throw error;
			}

			throw new BackendUnavailableError('backend-unavailable', `Redis at ${options.maskedUrl} could not store event ${event.id}: ${errorMessage(error)}`, {cause: error});
		}
	};
}

/**
 * With `waitReplicas`: WAIT until that many replicas have every write this connection made (the
 * job and its id), or 503 when they do not confirm within the timeout.
 */
async function confirmed(options: EventQueueOptions, eventId: string): Promise<void> {
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

export function createEventQueue(options: EventQueueOptions): EventQueue {
	const keep: Keep = {age: Math.ceil(options.keepMs / 1000), count: options.keepCount};
	const queue = new Queue<NewEvent>(options.queueName, {
		connection: options.producer,
		prefix: options.prefix,
		// The answer has its own failure path (apology, logs FAILED): BullMQ never retries it.
		defaultJobOptions: {attempts: 1, removeOnComplete: keep, removeOnFail: keep},
	});
	// BullMQ re-emits connection errors; the producer's own listener reports them.
	queue.on('error', () => undefined);
	const admission = admitter(options.producer, queue);
	return {
		queue,
		accept: eventAccepter(options, queue, admission, keep),
		holds: async id => admission.holds(jobIdOf(id)),
		...queueReads(queue),
		...queueFigures(queue),
		async close() {
			await queue.close();
		},
	};
}
