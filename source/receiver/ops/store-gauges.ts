/**
 * serve's gauges of what the store and the status hold, read when scraped: the backlog and its
 * limit, the waiting events, Redis persistence, the Redis queue or the journal's size, readiness.
 */
import {Gauge, type Registry} from 'prom-client';
import type {BackendStats, Backlog, StoreDurability, WaitingSummary} from '../store/backend.js';

export const prefix = 'platform_tui_';

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

/** `read`, called at most once per 250 ms however many gauges of one scrape ask; a failed read is undefined. */
function cachedRead<T>(read: () => Promise<T | undefined>): () => Promise<T | undefined> {
	let last: {at: number; value: Promise<T | undefined>} | undefined;
	return async () => {
		const now = performance.now();
		if (!last || now - last.at > 250) {
			last = {at: now, value: read().catch(() => undefined)};
		}

		return last.value;
	};
}

/** A gauge set at each scrape to `value` of what `read` gives (undefined: left as it was). */
function readGauge<T>(registers: Registry[], name: string, help: string, read: () => Promise<T | undefined>, value: (read: T | undefined) => number | undefined): void {
	new Gauge({name: `${prefix}${name}`, help, registers, async collect() {
		const figure = value(await read());
		if (figure !== undefined) {
			this.set(figure);
		}
	}});
}

export function registerStoreGauges(sources: MetricsSources, registers: Registry[]): void {
	const readBacklog = sources.backlog;
	const backlog = cachedRead(async () => (readBacklog ? readBacklog() : undefined));

	readGauge(registers, 'backlog_events', 'Unfinished events (received or processing)', backlog, value => value?.count);
	readGauge(registers, 'backlog_oldest_age_seconds', 'Age of the oldest unfinished event (0 when none)', backlog, value => {
		const oldest = value?.oldestReceivedAt ? Date.parse(value.oldestReceivedAt) : Number.NaN;
		return Number.isFinite(oldest) ? Math.max(0, (Date.now() - oldest) / 1000) : 0;
	});
	if (sources.waiting) {
		const waiting = cachedRead(sources.waiting);
		readGauge(registers, 'waiting_events', 'Events waiting for their next attempt after a transient failure (platform or forward handler unreachable, 5xx, 429, timeout)', waiting, value => value?.count);
		readGauge(registers, 'waiting_next_attempt_timestamp_seconds', 'When the earliest waiting event is tried again, seconds since the epoch (0 when none waits)', waiting, value => {
			const next = value?.nextAttemptAt ? Date.parse(value.nextAttemptAt) : Number.NaN;
			return Number.isFinite(next) ? next / 1000 : 0;
		});
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
}
