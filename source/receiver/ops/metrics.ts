/**
 * serve's Prometheus metrics, through prom-client on a registry of their own (never the global
 * one). The families a delivery touches are plain number tables read when scraped
 * (metric-tables.ts), so a delivery costs an array write; store figures (backlog, size, queue
 * counts) are read when scraped too.
 */
import {collectDefaultMetrics, Counter, Histogram, Registry} from 'prom-client';
import {eventTypes} from '../../platform/types.js';
import type {ReceiverEvent, RejectionReason} from '../events.js';
import {TableCounter, TableHistogram} from './metric-tables.js';
import {prefix, registerStoreGauges, type MetricsSources} from './store-gauges.js';


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

type Child = {inc(value?: number): void};
type Observer = {observe(value: number): void};

export type ServeMetrics = {
	readonly registry: Registry;
	/** Counts a receiver event (deliveries by outcome, events by type and final status, processing time). */
	onEvent(event: ReceiverEvent): void;
	/** One 200 sent: the time since the request arrived, ms (performance clock). */
	acknowledged(startedMs: number): void;
	/** One store write (the journal's write-ahead log flushed, the Redis write), ms. */
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

/**
 * The tables of deliveries by outcome and of events by type and final status, and what a receiver
 * event adds to them (an event's end also to the processing histogram).
 */
function eventCounter(registry: Registry): (event: ReceiverEvent, processing: Observer) => void {
	const outcomeNames: ReadonlyArray<RejectionReason | 'accepted' | 'duplicate'> = ['accepted', 'duplicate', ...rejectionReasons];
	const deliveries = new TableCounter(`${prefix}deliveries_total`, 'Webhook deliveries by outcome: accepted, duplicate, or the reason of the error answer', outcomeNames.map(outcome => ({outcome})), registry);
	const outcomeSlot = Object.fromEntries(outcomeNames.map((outcome, slot) => [outcome, slot])) as Record<RejectionReason | 'accepted' | 'duplicate', number>;
	const typeNames = [...knownTypes, 'other'];
	const events = new TableCounter(`${prefix}events_total`, 'Events that reached a final status, by type', typeNames.flatMap(type => finalStatuses.map(status => ({type, status}))), registry);
	const eventSlot = (type: string, status: FinalStatus) => {
		const typeIndex = knownTypes.indexOf(type);
		return ((typeIndex === -1 ? knownTypes.length : typeIndex) * finalStatuses.length) + finalStatuses.indexOf(status);
	};

	const finalStatus = (type: string, status: FinalStatus) => {
		events.inc(eventSlot(type, status));
	};

	return (event, processing) => {
		switch (event.type) {
			case 'accepted': {
				deliveries.inc(outcomeSlot.accepted);
				if (event.handling !== 'queued') {
					finalStatus(event.eventType, event.handling === 'invalid' ? 'failed' : (event.handling === 'logged' ? 'logged' : 'ignored'));
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
					finalStatus(event.eventType ?? eventTypes.externalModuleChosen, event.stage);
					processing.observe((event.durationMs ?? 0) / 1000);
				} else if (event.stage === 'lost') {
					// Lost with the Redis data before any replica ended it (another replica counts what it ends).
					finalStatus(event.eventType ?? eventTypes.externalModuleChosen, 'lost');
				}

				break;
			}

			default: {
				break;
			}
		}
		
	};
}

export function createServeMetrics(sources: MetricsSources = {}): ServeMetrics {
	const registry = new Registry();
	const registers = [registry];
	collectDefaultMetrics({register: registry});
	// The families a delivery touches are plain number tables (metric-tables.ts); the rest are prom-client's own.
	const countEvent = eventCounter(registry);
	const ack = new TableHistogram(`${prefix}ack_latency_seconds`, 'Time from a delivery\'s arrival to its 200', latencyBuckets, registry);
	const processing = new Histogram({name: `${prefix}processing_duration_seconds`, help: 'Time from acceptance to the end of an event\'s processing (answer or forward)', buckets: durationBuckets, registers});
	const commit = new TableHistogram(`${prefix}store_commit_duration_seconds`, 'Time to store a verified event before its 200 (the journal\'s write-ahead log flushed, or the Redis write)', latencyBuckets, registry, {backend: sources.backendKind ?? 'memory'});
	const calls = new Counter({name: `${prefix}platform_calls_total`, help: 'Platform calls by operation and status class', labelNames: ['operation', 'status_class'], registers});
	const callDuration = new Histogram({name: `${prefix}platform_call_duration_seconds`, help: 'Platform call duration, retries included, by operation', labelNames: ['operation'], buckets: durationBuckets, registers});
	const callChildren = new Map<string, {count: Map<string, Child>; duration: Observer}>();
	const retries = new Counter({name: `${prefix}retries_total`, help: 'Retries of platform calls and of forwards', labelNames: ['target'], registers});
	const retryChildren = {platform: retries.labels('platform'), forward: retries.labels('forward')};

	registerStoreGauges(sources, registers);

	return {
		registry,
		contentType: registry.contentType,
		onEvent(event) {
			countEvent(event, processing);
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
