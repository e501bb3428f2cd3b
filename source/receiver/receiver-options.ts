/** The receiver's options and their defaults. */
import {defaultModel} from '../config/settings.js';
import {isRecord} from '../format/value.js';
import type {PlatformClient} from '../platform/client.js';
import type {Clock} from '../platform/clock.js';
import type {EventBackend} from './store/backend.js';
import {defaultDedupeTtlMs, type EventIdStore, type EventIdStoreOptions} from './intake/dedupe.js';
import type {ReceiverCounters} from './events.js';
import type {ForwardOptions} from './forward/forward.js';
import type {RetrySchedule} from './answer/retry-schedule.js';
import type {CallWatcher} from './ops/platform-probe.js';
import {createMemoryBackend} from './store/memory-backend.js';
import {defaultLinger, type LingerLimits} from './intake/transport.js';

export type ReceiverOptions = {
	/** Platform client for the answers; each call names the event's user and company. */
	client: PlatformClient;
	/** Endpoint secrets; a delivery signed with any of them verifies (for rotating the secret). */
	secrets: readonly string[];
	/** Where verified events are kept. Default: a memory backend (`maxPending`, `dedupe`). */
	backend?: EventBackend;
	/** Largest accepted difference between X-Platform-Created-At and now, seconds. Default 300. */
	toleranceSeconds?: number;
	/** Answers run at once. Default 8. */
	concurrency?: number;
	/** Memory backend: jobs that may wait beyond those running; past it deliveries get 503. Default 10 000. */
	maxPending?: number;
	/** Chat-completion model. Default AZURE_GPT_4o_2024_1120. */
	model?: string;
	/** Default drain time of `close()`, ms. Default 25 000. */
	drainTimeoutMs?: number;
	/** Time allowed to each failure-path call (closing a log, the apology), ms. Default 10 000. */
	cleanupTimeoutMs?: number;
	/** Largest webhook body, bytes. Default 1 MiB. */
	maxBodyBytes?: number;
	/** Memory backend: exactly-once store options, or a store to share. Default: 24 h / 100 000 ids. */
	dedupe?: EventIdStoreOptions | EventIdStore;
	/**
	 * Events whose body `createdAt` is older than this are refused (400): the backend may have
	 * forgotten their id, so a replayed old delivery would be processed again. Default: the memory
	 * store's id retention (24 h); set it to the backend's retention.
	 */
	replayWindowMs?: number;
	/** After an early answer (413, 400), how long and how much of the body is read and discarded. */
	linger?: LingerLimits;
	/**
	 * Unfinished events above which new deliveries get 503 with Retry-After and are not stored (the
	 * platform redelivers). This process's own jobs, or with `backlog` the larger of those and the
	 * store's count (the cluster's, with Redis), read every `backlogPollMs`. Default: no bound.
	 */
	maxBacklog?: number;
	/** How often the store's backlog is read for `maxBacklog`, ms. Default 1000. */
	backlogPollMs?: number;
	/** The clock `backlogPollMs` is counted on. Default: the monotonic clock (a test passes a `ManualClock`). */
	backlogClock?: Clock;
	/**
	 * Durable retries (retry-schedule.ts): an answer or forward that fails for a transient reason
	 * waits, its schedule stored with the event, until the answer deadline; then the apology is
	 * retried until the final-message deadline. Default: off (any failure takes the failure path at once).
	 */
	retry?: Partial<RetrySchedule>;
	/** Forward every stored event to a handler of the developer's instead of the built-in answer. */
	forward?: ForwardOptions;
	/** Told of every platform call the answer makes (metrics, the platform's status). */
	callWatcher?: CallWatcher;
	/** Told of each 200 (with the request's arrival, performance clock) and each store write (ms). */
	observer?: ReceiverObserver;
	/**
	 * Redis: how often the events accepted here and not running here are looked for in the store,
	 * so those another replica ended, or that were lost with the Redis data, stop counting as
	 * processing. Default 5000 ms.
	 */
	lostSweepMs?: number;
};

/** Timings of the delivery path; called on it, so they must be cheap. */
export type ReceiverObserver = {
	acknowledged(startedMs: number): void;
	stored(ms: number): void;
	/** A forward attempt failed and is retried. */
	forwardRetry?(): void;
};

export type CloseResult = {
	/** Jobs still open at the drain deadline, cut off. */
	cutOff: number;
	/** Events that ended waiting during the stop (the cut-off ones among them): the next start or another replica resumes them. */
	leftWaiting: number;
	counters: ReceiverCounters;
};

export type ResolvedOptions = Required<Omit<ReceiverOptions, 'dedupe' | 'backend' | 'client' | 'secrets' | 'maxPending' | 'maxBacklog' | 'backlogPollMs' | 'backlogClock' | 'forward' | 'observer' | 'callWatcher' | 'lostSweepMs' | 'retry'>>;

/** The receiver's defaults, declared once: serve's flags show and use them. */
export const receiverDefaults = {
	toleranceSeconds: 300,
	concurrency: 8,
	drainTimeoutMs: 25_000,
} as const;

export function resolveOptions(options: ReceiverOptions): ResolvedOptions {
	const dedupeTtl = isRecord(options.dedupe) && typeof options.dedupe.ttlMs === 'number' ? options.dedupe.ttlMs : defaultDedupeTtlMs;
	return {
		toleranceSeconds: options.toleranceSeconds ?? receiverDefaults.toleranceSeconds,
		concurrency: options.concurrency ?? receiverDefaults.concurrency,
		model: options.model ?? defaultModel,
		drainTimeoutMs: options.drainTimeoutMs ?? receiverDefaults.drainTimeoutMs,
		cleanupTimeoutMs: options.cleanupTimeoutMs ?? 10_000,
		maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
		replayWindowMs: options.replayWindowMs ?? dedupeTtl,
		linger: options.linger ?? defaultLinger,
	};
}

/** The memory backend a receiver uses when given none. */
export function defaultBackend(options: ReceiverOptions, resolved: ResolvedOptions): EventBackend {
	return createMemoryBackend({
		...(options.maxPending === undefined ? {} : {maxPending: options.maxPending}),
		...(options.dedupe === undefined ? {} : {dedupe: options.dedupe}),
		// Each cut-off job makes at most three bounded failure-path calls (two logs, the apology).
		abortGraceMs: (resolved.cleanupTimeoutMs * 3) + 1000,
	});
}
