/**
 * The Redis backend (BullMQ): several `serve` replicas share one queue, the exactly-once ids and
 * the work. A verified event becomes a job whose id is the event id; each replica runs a worker.
 */
import type {BackendHealth, EventBackend} from '../store/backend.js';
import {maskUrl} from '../../format/secret.js';
import {type ConnectOptions, type RedisClient, checkRedisUrl, connect, defaultCommandTimeoutMs, disconnect} from './connection.js';
import {prefixFor} from './target.js';
import {checkPersistence} from './persistence.js';
import {createEventQueue, defaultWaitTimeoutMs} from './queue.js';
import {type EventWorker, startWorker} from './worker.js';
import type {Keep} from './finished.js';

export {RedisError, type RedisErrorCode, type RedisErrorData} from './errors.js';
export {defaultLockDurationMs, defaultStalledIntervalMs, replicaName} from './worker.js';

/** The ids (finished jobs) are kept at least this long: the exactly-once window. */
export const minRetentionMs = 24 * 60 * 60 * 1000;
export const defaultMaxAgeMs = 7 * 24 * 60 * 60 * 1000;
export const defaultMaxEntries = 100_000;
export const defaultQueueName = 'events';
export const defaultPrefix = 'platform-tui';

export type RedisBackendOptions = {
	/** `redis://[user:password@]host:port[/db]`, `rediss://…` (TLS), or a Cluster or Sentinel URL (target.ts). */
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
	/** Check whether Redis keeps acknowledged events (`durability` on the backend); serve does. */
	checkDurability?: boolean;
	/**
	 * A volatile Redis (see persistence.ts) is accepted: `health` stays ok (serve warns instead).
	 * Without it, `health` is not ok while the check finds Redis volatile.
	 */
	allowVolatile?: boolean;
	/** Acknowledge an event only once this many replicas confirm it (WAIT); see queue.ts. */
	waitReplicas?: number;
	waitTimeoutMs?: number;
	/** How often the durability check runs again after the first, ms (default 5000). */
	durabilityRecheckMs?: number;
	/** After the drain deadline, how long cut-off jobs get for their failure path, ms (default 31 000). */
	abortGraceMs?: number;
	/** How long a stop with no job left waits for BullMQ to hang up, ms (default 2000). */
	hangUpMs?: number;
};

/** How often serve checks Redis's persistence settings again after start. */
export const defaultDurabilityRecheckMs = 5000;

/**
 * What the queue and the worker keep: finished events for `keep` (seconds, and how many at most; at
 * least the 24 h exactly-once window), and each id held for that window (`holdIdMs`) even when the
 * count bound removes its event sooner.
 */
function retentionOf(options: RedisBackendOptions): {keep: Keep; holdIdMs: number} {
	return {
		keep: {age: Math.ceil(Math.max(options.maxAgeMs ?? defaultMaxAgeMs, minRetentionMs) / 1000), count: options.maxEntries ?? defaultMaxEntries},
		holdIdMs: minRetentionMs,
	};
}

/** The queue side (accept, list, replay, figures) over the producer connection. */
function eventQueueOf(producer: RedisClient, queueName: string, prefix: string, options: RedisBackendOptions) {
	return createEventQueue({
		producer,
		queueName,
		prefix,
		...retentionOf(options),
		maskedUrl: maskUrl(options.url),
		...(options.replicaName === undefined ? {} : {replicaName: options.replicaName}),
		...(options.waitReplicas ? {waitReplicas: options.waitReplicas, waitTimeoutMs: options.waitTimeoutMs ?? defaultWaitTimeoutMs} : {}),
	});
}

type Durability = Awaited<ReturnType<typeof checkPersistence>>;
type DurabilityWatch = {current(): Durability | undefined; recheck(): Promise<void>};

/**
 * Whether Redis keeps acknowledged events (with `checkDurability`; undefined otherwise): checked
 * at start, and again by `recheck` when the last check is old (someone may have changed the settings).
 */
async function watchDurability(producer: RedisClient, options: RedisBackendOptions): Promise<DurabilityWatch> {
	let durability = options.checkDurability ? await checkPersistence(producer) : undefined;
	let durabilityCheckedAt = Date.now();
	return {
		current: () => durability,
		async recheck() {
			if (durability === undefined || producer.status !== 'ready' || Date.now() - durabilityCheckedAt < (options.durabilityRecheckMs ?? defaultDurabilityRecheckMs)) {
				return;
			}

			durabilityCheckedAt = Date.now();
			const found = await checkPersistence(producer);
			// A connection lost during the check says nothing about the settings: keep the last answer.
			if (found.state !== 'unknown' || durability.state === 'unknown') {
				durability = found;
			}
		},
	};
}

/** What a replica's worker takes from the backend's options. */
function workerOptions(options: RedisBackendOptions) {
	return {
		lockDurationMs: options.lockDurationMs,
		stalledIntervalMs: options.stalledIntervalMs,
		name: options.replicaName,
		onError: options.onError,
		...(options.limiter ? {limiter: options.limiter} : {}),
		abortGraceMs: options.abortGraceMs,
		hangUpMs: options.hangUpMs,
	};
}

/** Not ok while a connection is down, or (unless allowed) while Redis may lose acknowledged events. */
async function healthOf(clients: Array<RedisClient | undefined>, durability: DurabilityWatch, options: RedisBackendOptions): Promise<BackendHealth> {
	const down = clients.find(client => client !== undefined && client.status !== 'ready');
	if (down !== undefined) {
		return {ok: false, reason: `Redis at ${maskUrl(options.url)} is not connected (${down.status})`};
	}

	await durability.recheck();
	const found = durability.current();
	if (found?.state === 'volatile' && options.allowVolatile !== true) {
		return {ok: false, reason: `Redis at ${maskUrl(options.url)} may lose acknowledged events: ${found.detail ?? 'persistence is off'}`};
	}

	return {ok: true};
}

/**
 * Connects to Redis and returns the backend. Throws a `RedisError` (`redis-url-invalid`,
 * `redis-unreachable`, `redis-auth`) when Redis cannot be used now.
 */
export async function openRedisBackend(options: RedisBackendOptions): Promise<EventBackend> {
	const connectOptions: ConnectOptions = {
		url: options.url,
		connectTimeoutMs: options.connectTimeoutMs,
		tls: options.tls,
		onError: options.onError,
		// WAIT blocks up to its timeout: the producer's command timeout leaves it room.
		...(options.waitReplicas ? {commandTimeoutMs: defaultCommandTimeoutMs + (options.waitTimeoutMs ?? defaultWaitTimeoutMs)} : {}),
	};
	const producer = await connect('producer', connectOptions);
	const queueName = options.queueName ?? defaultQueueName;
	// In a Cluster the prefix is hash-tagged (`{platform-tui}`): all keys of the queue in one slot.
	const prefix = prefixFor(checkRedisUrl(options.url), options.prefix ?? defaultPrefix);
	const events = eventQueueOf(producer, queueName, prefix, options);
	const durability = await watchDurability(producer, options);
	let worker: EventWorker | undefined;
	let workerConnection: Awaited<ReturnType<typeof connect>> | undefined;

	return {
		kind: 'redis',
		get durability() {
			return durability.current();
		},
		sharesBacklog: true,
		accept: async (event, limit) => events.accept(event, limit),
		async start(handler, {concurrency}) {
			if (worker !== undefined) {
				throw new Error('The Redis backend is already processing.');
			}

			workerConnection = await connect('worker', connectOptions);
			worker = await startWorker({connection: workerConnection, queueName, prefix, handler, concurrency, ...retentionOf(options), ...workerOptions(options)});
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
		health: async () => healthOf([producer, workerConnection], durability, options),
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
