/**
 * The queue side of the Redis backend: store (accept), read (list/get/stats) and re-queue (replay).
 * Every replica and every `events` command use it; only `serve` also runs a worker (worker.ts).
 */
import {Queue} from 'bullmq';
import type {RedisClient} from './connection.js';
import {type AcceptResult, BackendUnavailableError, type NewEvent} from '../store/backend.js';
import {errorMessage} from '../../format/value.js';
import {jobIdOf} from './mapping.js';
import {type Admitter, admitter} from './admission.js';
import {writeTogether} from './write-together.js';
import {eventRecorder} from './record.js';
import type {Keep} from './finished.js';
import {replicaName} from './worker.js';
import {queueFigures, queueReads, type QueueFigures, type QueueReads} from './queue-reads.js';

export type EventQueueOptions = {
	producer: RedisClient;
	queueName: string;
	prefix: string;
	/** How long finished jobs (and so their ids, the exactly-once keys) are kept: seconds, and how many of each outcome at most. */
	keep: Keep;
	/**
	 * How long an id stays held after `accept`, ms, whatever `keep`'s count removes. An event to
	 * answer gets a key of its own at once (BullMQ's de-duplication key `<prefix>:<queue>:de:<job id>`,
	 * expiring); an event recorded only is held by its job, and gets that key only if the count
	 * bound removes its job sooner (finished.ts). Releases before these kept `…:id:<job id>`, still
	 * honoured. So the count bound never frees an id inside the exactly-once window.
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

/** The job options as BullMQ's add stores them (the queue's defaults, the job id and its hold). */
function jobOptionsOf(jobId: string, options: EventQueueOptions): Record<string, unknown> {
	// `de` is BullMQ's stored name of `deduplication`: the id's hold, with its TTL.
	return {de: {id: jobId, ttl: options.holdIdMs}, jobId, removeOnComplete: options.keep, removeOnFail: options.keep, attempts: 1};
}

/**
 * The queue's `accept`: stores the event unless its id is held (or the cluster is full), and with
 * `waitReplicas` acknowledges only once the replicas confirm it.
 */
function eventAccepter(options: EventQueueOptions, queue: Queue<NewEvent>, admission: Admitter): EventQueue['accept'] {
	const record = eventRecorder(options.producer, queue, {holdIdMs: options.holdIdMs, keep: options.keep, replica: options.replicaName ?? replicaName()});
	return async (event, limit) => {
		const jobId = jobIdOf(event.id);
		writeTogether(options.producer);
		try {
			// The job id is the exactly-once key, held twice: by the job while it is kept, and by a
			// key of its own for 24 h (the count bound may remove the job sooner). Either way one
			// script: an event recorded only is stored finished (record.ts), one to answer waiting
			// (admission.ts).
			const outcome = event.status === 'received'
				? await admission.admit(jobId, event, jobOptionsOf(jobId, options), limit)
				: await record(jobId, event, jobOptionsOf(jobId, options));
			if (outcome !== 'full') {
				// A redelivery after a WAIT that timed out is acknowledged only once replicas confirm.
				await confirmed(options, event.id);
			}

			return outcome;
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
	const queue = new Queue<NewEvent>(options.queueName, {
		connection: options.producer,
		prefix: options.prefix,
		// The answer has its own failure path (apology, logs FAILED): BullMQ never retries it.
		defaultJobOptions: {attempts: 1, removeOnComplete: options.keep, removeOnFail: options.keep},
	});
	// BullMQ re-emits connection errors; the producer's own listener reports them.
	queue.on('error', () => undefined);
	const admission = admitter(options.producer, queue, options.holdIdMs);
	return {
		queue,
		accept: eventAccepter(options, queue, admission),
		holds: async id => admission.holds(jobIdOf(id)),
		...queueReads(queue),
		...queueFigures(queue),
		async close() {
			await queue.close();
		},
	};
}
