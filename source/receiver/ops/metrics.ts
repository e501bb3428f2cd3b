/**
 * serve's Prometheus metrics, through prom-client on a registry of their own (never the global
 * one). The families a delivery touches are plain number tables read when scraped
 * (metric-tables.ts), so a delivery costs an array write; store figures (backlog, size, queue
 * counts) are read when scraped too.
 */
import {collectDefaultMetrics, Counter, Gauge, Histogram, Registry} from 'prom-client';
import {eventTypes} from '../../platform/types.js';
import type {BackendStats, Backlog, StoreDurability, WaitingSummary} from '../store/backend.js';
import type {ReceiverEvent, RejectionReason} from '../events.js';
import {TableCounter, TableHistogram} from './metric-tables.js';

const prefix = 'platform_tui_';

/** Every reason, checked by the compiler: a reason added to the type and not here fails the build. */
const everyReason = {
	'body-too-large': true, 'missing-signature-headers': true, 'malformed-signature': true, 'signature-mismatch': true, 'malformed-timestamp': true,
	'timestamp-outside-tolerance': true, 'invalid-json': true, 'not-an-object': true, 'event-too-old': true, busy: true, 'backlog-full': true,
	'backend-unavailable': true, 'shutting-down': true, 'not-found': true, 'method-not-allowed': true,
} satisfies Record<RejectionReason, true>;

export const rejectionReasons = Object.keys(everyReason) as readonly RejectionReason[];

const knownTypes: readonly string[] = [eventTypes.externalModuleChosen, eventTypes.userMessageCreated];
const finalStatuses = ['answered', 'failed', 'logged', 'ignored', 'lost'] as const;
type FinalStatus = typeof finalStatuses[number];

/** What the scrape reads from the store and the status. */
export type MetricsSources = {
	backlog?: () => Promise<Backlog>;
	/** Events waiting for their next attempt after a transient failure. */
	waiting?: () => Promise<WaitingSummary>;
	stats?: () => Promise<BackendStats>;
	backendKind?: string;
	/** 1 when ready, else 0; and each dependency's state. */
	ready?: () => {ready: boolean; dependencies: Record<string, boolean>};
	maxBacklog?: number;
	/** Redis: whether it persists its data, as checked at start-up. */
	durability?: StoreDurability['state'];
};

type Child = {inc(value?: number): void};
type Observer = {observe(value: number): void};

export type ServeMetrics = {
	readonly registry: Registry;
	/** Counts a receiver event (deliveries by outcome, events by type and final status, processing time). */
	onEvent(event: ReceiverEvent): void;
	/** One 200 sent: the time since the request arrived, ms (performance clock). */
	acknowledged(startedMs: number): void;
	/** One store write (journal commit, Redis write), ms. */
	stored(ms: number): void;
	/** One platform call: its operation, status class (2xx, 4xx, 5xx, error) and duration, ms. */
	platformCall(operation: string, statusClass: string, ms: number): void;
	/** One retry: of a platform call or of a forward. */
	retry(target: 'platform' | 'forward'): void;
	/** The Prometheus text exposition. */
	text(): Promise<string>;
	readonly contentType: string;
};

const latencyBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const durationBuckets = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 60, 120];

export function createServeMetrics(sources: MetricsSources = {}): ServeMetrics {
	const registry = new Registry();
	const registers = [registry];
	collectDefaultMetrics({register: registry});
	// The families a delivery touches are plain number tables (metric-tables.ts); the rest are prom-client's own.
	const outcomeNames: ReadonlyArray<RejectionReason | 'accepted' | 'duplicate'> = ['accepted', 'duplicate', ...rejectionReasons];
	const deliveries = new TableCounter(`${prefix}deliveries_total`, 'Webhook deliveries by outcome: accepted, duplicate, or the reason of the error answer', outcomeNames.map(outcome => ({outcome})), registry);
	const outcomeSlot = Object.fromEntries(outcomeNames.map((outcome, slot) => [outcome, slot])) as Record<RejectionReason | 'accepted' | 'duplicate', number>;
	const typeNames = [...knownTypes, 'other'];
	const events = new TableCounter(`${prefix}events_total`, 'Events that reached a final status, by type', typeNames.flatMap(type => finalStatuses.map(status => ({type, status}))), registry);
	const eventSlot = (type: string, status: FinalStatus) => {
		const typeIndex = knownTypes.indexOf(type);
		return ((typeIndex === -1 ? knownTypes.length : typeIndex) * finalStatuses.length) + finalStatuses.indexOf(status);
	};

	const countEvent = (type: string, status: FinalStatus) => {
		events.inc(eventSlot(type, status));
	};

	const ack = new TableHistogram(`${prefix}ack_latency_seconds`, 'Time from a delivery\'s arrival to its 200', latencyBuckets, registry);
	const processing = new Histogram({name: `${prefix}processing_duration_seconds`, help: 'Time from acceptance to the end of an event\'s processing (answer or forward)', buckets: durationBuckets, registers});
	const commit = new TableHistogram(`${prefix}store_commit_duration_seconds`, 'Time to store a verified event before its 200 (journal commit or Redis write)', latencyBuckets, registry, {backend: sources.backendKind ?? 'memory'});
	const calls = new Counter({name: `${prefix}platform_calls_total`, help: 'Platform calls by operation and status class', labelNames: ['operation', 'status_class'], registers});
	const callDuration = new Histogram({name: `${prefix}platform_call_duration_seconds`, help: 'Platform call duration, retries included, by operation', labelNames: ['operation'], buckets: durationBuckets, registers});
	const callChildren = new Map<string, {count: Map<string, Child>; duration: Observer}>();
	const retries = new Counter({name: `${prefix}retries_total`, help: 'Retries of platform calls and of forwards', labelNames: ['target'], registers});
	const retryChildren = {platform: retries.labels('platform'), forward: retries.labels('forward')};

	let backlogRead: {at: number; value: Promise<Backlog | undefined>} | undefined;
	const backlog = async () => {
		const now = performance.now();
		if (!backlogRead || now - backlogRead.at > 250) {
			backlogRead = {at: now, value: sources.backlog ? sources.backlog().catch(() => undefined) : Promise.resolve(undefined)};
		}

		return backlogRead.value;
	};

	new Gauge({name: `${prefix}backlog_events`, help: 'Unfinished events (received or processing)', registers, async collect() {
		const value = await backlog();
		if (value) {
			this.set(value.count);
		}
	}});
	new Gauge({name: `${prefix}backlog_oldest_age_seconds`, help: 'Age of the oldest unfinished event (0 when none)', registers, async collect() {
		const value = await backlog();
		const oldest = value?.oldestReceivedAt ? Date.parse(value.oldestReceivedAt) : Number.NaN;
		this.set(Number.isFinite(oldest) ? Math.max(0, (Date.now() - oldest) / 1000) : 0);
	}});
	if (sources.waiting) {
		const read = sources.waiting;
		let waitingRead: {at: number; value: Promise<WaitingSummary | undefined>} | undefined;
		const waiting = async () => {
			const now = performance.now();
			if (!waitingRead || now - waitingRead.at > 250) {
				waitingRead = {at: now, value: read().catch(() => undefined)};
			}

			return waitingRead.value;
		};

		new Gauge({name: `${prefix}waiting_events`, help: 'Events waiting for their next attempt after a transient failure (platform or forward handler unreachable, 5xx, 429, timeout)', registers, async collect() {
			const value = await waiting();
			if (value) {
				this.set(value.count);
			}
		}});
		new Gauge({name: `${prefix}waiting_next_attempt_timestamp_seconds`, help: 'When the earliest waiting event is tried again, seconds since the epoch (0 when none waits)', registers, async collect() {
			const value = await waiting();
			const next = value?.nextAttemptAt ? Date.parse(value.nextAttemptAt) : Number.NaN;
			this.set(Number.isFinite(next) ? next / 1000 : 0);
		}});
	}

	if (sources.maxBacklog !== undefined) {
		new Gauge({name: `${prefix}backlog_limit_events`, help: 'Unfinished events above which deliveries get 503 (--max-backlog)', registers}).set(sources.maxBacklog);
	}

	if (sources.durability !== undefined) {
		const persistence = new Gauge({name: `${prefix}redis_persistence`, help: 'Whether Redis persists its data (AOF or RDB snapshots), checked at start-up: 1 on the state found (on, off, or unknown when CONFIG was refused)', labelNames: ['state'], registers});
		const found = {persistent: 'on', volatile: 'off', unknown: 'unknown'}[sources.durability];
		for (const state of ['on', 'off', 'unknown']) {
			persistence.labels(state).set(state === found ? 1 : 0);
		}
	}

	if (sources.stats) {
		const read = sources.stats;
		if (sources.backendKind === 'redis') {
			new Gauge({name: `${prefix}redis_jobs`, help: 'Jobs in the shared Redis queue by state', labelNames: ['state'], registers, async collect() {
				const stats = await read().catch(() => undefined);
				for (const [state, count] of Object.entries(stats?.queue ?? {})) {
					this.labels(state).set(count);
				}
			}});
		} else {
			new Gauge({name: `${prefix}journal_size_bytes`, help: 'Bytes the event journal takes on disk', registers, async collect() {
				const stats = await read().catch(() => undefined);
				if (stats?.bytes !== undefined) {
					this.set(stats.bytes);
				}
			}});
		}
	}

	if (sources.ready) {
		const read = sources.ready;
		new Gauge({name: `${prefix}ready`, help: '1 when serve is ready (the store writable, the platform answering, not draining)', registers, collect() {
			this.set(read().ready ? 1 : 0);
		}});
		new Gauge({name: `${prefix}dependency_up`, help: '1 when a dependency answered its last check', labelNames: ['dependency'], registers, collect() {
			for (const [name, up] of Object.entries(read().dependencies)) {
				this.labels(name).set(up ? 1 : 0);
			}
		}});
	}

	return {
		registry,
		contentType: registry.contentType,
		onEvent(event) {
			switch (event.type) {
				case 'accepted': {
					deliveries.inc(outcomeSlot.accepted);
					if (event.handling !== 'queued') {
						countEvent(event.eventType, event.handling === 'invalid' ? 'failed' : (event.handling === 'logged' ? 'logged' : 'ignored'));
					}

					break;
				}

				case 'duplicate': {
					deliveries.inc(outcomeSlot.duplicate);
					break;
				}

				case 'rejected': {
					deliveries.inc(outcomeSlot[event.reason]);
					break;
				}

				case 'stage': {
					if (event.stage === 'answered' || event.stage === 'failed') {
						countEvent(event.eventType ?? eventTypes.externalModuleChosen, event.stage);
						processing.observe((event.durationMs ?? 0) / 1000);
					} else if (event.stage === 'lost') {
						// Lost with the Redis data before any replica ended it (another replica counts what it ends).
						countEvent(event.eventType ?? eventTypes.externalModuleChosen, 'lost');
					}

					break;
				}

				default: {
					break;
				}
			}
		},
		acknowledged(startedMs) {
			ack.observe((performance.now() - startedMs) / 1000);
		},
		stored(ms) {
			commit.observe(ms / 1000);
		},
		platformCall(operation, statusClass, ms) {
			let children = callChildren.get(operation);
			if (!children) {
				children = {count: new Map(), duration: callDuration.labels(operation)};
				callChildren.set(operation, children);
			}

			let count = children.count.get(statusClass);
			if (!count) {
				count = calls.labels(operation, statusClass);
				children.count.set(statusClass, count);
			}

			count.inc();
			children.duration.observe(ms / 1000);
		},
		retry(target) {
			retryChildren[target].inc();
		},
		async text() {
			return registry.metrics();
		},
	};
}
