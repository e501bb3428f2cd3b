/**
 * The Redis backend (BullMQ): several `serve` replicas share one queue, the exactly-once ids and
 * the work. A verified event becomes a job whose id is the event id; each replica runs a worker.
 */
import type {BackendHealth, EventBackend} from '../backend.js';
import {maskUrl} from '../../format/index.js';
import {type ConnectOptions, connect, disconnect} from './connection.js';
import {checkPersistence} from './persistence.js';
import {createEventQueue} from './queue.js';
import {type EventWorker, startWorker} from './worker.js';

export {RedisError, type RedisErrorCode, type RedisErrorData} from './errors.js';
export {defaultLockDurationMs, defaultStalledIntervalMs, replicaName} from './worker.js';

/** The ids (finished jobs) are kept at least this long: the exactly-once window. */
export const minRetentionMs = 24 * 60 * 60 * 1000;
export const defaultMaxAgeMs = 7 * 24 * 60 * 60 * 1000;
export const defaultMaxEntries = 100_000;
export const defaultQueueName = 'events';
export const defaultPrefix = 'platform-tui';

export type RedisBackendOptions = {
	/** `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS). */
	url: string;
	/** How long finished events are kept (at least 24 h: the ids are the exactly-once keys). */
	maxAgeMs?: number;
	/**
	 * How many finished events of each outcome (completed, failed) are kept at most. Their ids stay
	 * held 24 h even when the count bound removes the events (see `holdIdMs` in queue.ts).
	 */
	maxEntries?: number;
	/** The BullMQ queue; replicas sharing work use the same one. */
	queueName?: string;
	/** The Redis key prefix. */
	prefix?: string;
	/** See `defaultLockDurationMs` in worker.ts: how fast a dead replica's jobs are taken over. */
	lockDurationMs?: number;
	stalledIntervalMs?: number;
	/** The holder name of this replica's jobs (default `host:pid`). */
	replicaName?: string;
	connectTimeoutMs?: number;
	tls?: ConnectOptions['tls'];
	/** BullMQ's limiter, shared by every replica: at most `max` jobs started per `durationMs`. */
	limiter?: {max: number; durationMs: number};
	/** Connection errors after start-up (Redis went away); the backend keeps reconnecting. */
	onError?: (error: Error) => void;
	/** Check whether Redis persists its data (`durability` on the backend); serve does. */
	checkDurability?: boolean;
};

/**
 * Connects to Redis and returns the backend. Throws a `RedisError` (`redis-url-invalid`,
 * `redis-unreachable`, `redis-auth`) when Redis cannot be used now.
 */
export async function openRedisBackend(options: RedisBackendOptions): Promise<EventBackend> {
	const connectOptions: ConnectOptions = {url: options.url, connectTimeoutMs: options.connectTimeoutMs, tls: options.tls, onError: options.onError};
	const producer = await connect('producer', connectOptions);
	const queueName = options.queueName ?? defaultQueueName;
	const prefix = options.prefix ?? defaultPrefix;
	const events = createEventQueue({
		producer,
		queueName,
		prefix,
		keepMs: Math.max(options.maxAgeMs ?? defaultMaxAgeMs, minRetentionMs),
		keepCount: options.maxEntries ?? defaultMaxEntries,
		holdIdMs: minRetentionMs,
		maskedUrl: maskUrl(options.url),
	});
	const durability = options.checkDurability ? await checkPersistence(producer) : undefined;
	let worker: EventWorker | undefined;
	let workerConnection: Awaited<ReturnType<typeof connect>> | undefined;

	return {
		kind: 'redis',
		...(durability ? {durability} : {}),
		accept: async event => events.accept(event),
		async start(handler, {concurrency}) {
			if (worker !== undefined) {
				throw new Error('The Redis backend is already processing.');
			}

			workerConnection = await connect('worker', connectOptions);
			worker = await startWorker({
				connection: workerConnection,
				queueName,
				prefix,
				handler,
				concurrency,
				lockDurationMs: options.lockDurationMs,
				stalledIntervalMs: options.stalledIntervalMs,
				name: options.replicaName,
				onError: options.onError,
				...(options.limiter ? {limiter: options.limiter} : {}),
			});
		},
		stop: async drainMs => worker === undefined ? {cutOff: 0} : worker.stop(drainMs),
		active: () => worker?.active() ?? 0,
		list: async filter => events.list(filter),
		get: async id => events.get(id),
		near: async id => events.near(id),
		holds: async id => events.holds(id),
		// Redis re-queues the event for the replicas: the handler of this process is not used.
		replay: async id => events.replay(id),
		stats: async () => events.stats(),
		async health(): Promise<BackendHealth> {
			const down = [producer, workerConnection].find(client => client !== undefined && client.status !== 'ready');
			return Promise.resolve(down === undefined ? {ok: true} : {ok: false, reason: `Redis at ${maskUrl(options.url)} is not connected (${down.status})`});
		},
		backlog: async () => events.backlog(),
		waiting: async () => events.waiting(),
		async wake() {
			// Every delayed job is a waiting event (BullMQ delays nothing else here).
			await events.queue.promoteJobs();
		},
		async throttle(ms) {
			await events.queue.rateLimit(Math.max(1, Math.round(ms)));
		},
		async close() {
			if (worker !== undefined) {
				await worker.stop(0);
			}

			await events.close();
			await Promise.all([producer, workerConnection].filter(client => client !== undefined).map(async client => disconnect(client)));
		},
	};
}
