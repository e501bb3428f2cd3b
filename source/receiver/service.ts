/**
 * What makes `serve` an operated service, wired together: the metrics, the health monitor (store
 * and platform), the receiver's observer and call watcher that feed both, the admin listener, and
 * the unready deadline (--exit-on-unready).
 */
import type {PlatformClient} from '../platform/client.js';
import type {RequestLogEntry} from '../platform/attempts.js';
import {startAdmin, type AdminListener} from './ops/admin.js';
import type {EventBackend, WaitingSummary} from './store/backend.js';
import {HealthMonitor, type HealthState} from './ops/health.js';
import {createServeMetrics, type ServeMetrics} from './ops/metrics.js';
import {probePlatform, type CallWatcher} from './ops/platform-probe.js';
import type {ReceiverObserver} from './receiver-options.js';
import type {WebhookReceiver} from './server.js';

export type ServiceOptions = {
	backend: EventBackend;
	client: PlatformClient;
	maxBacklog?: number;
	/** Default 30 000. */
	probeIntervalMs?: number;
	failingProbeIntervalMs?: number;
	storeIntervalMs?: number;
	/** How often the waiting events are read for the status, ms. Default 2000. */
	waitingIntervalMs?: number;
};

export type Service = {
	metrics: ServeMetrics;
	health: HealthMonitor;
	/** For the receiver's options. */
	observer: ReceiverObserver;
	callWatcher: CallWatcher;
	/** For the platform client's `onRequest`: counts retries. */
	onRequest(entry: RequestLogEntry): void;
	/** Feeds the receiver's events to the metrics and its drain to the status; starts the checks. */
	attach(receiver: WebhookReceiver): Promise<void>;
	/** The events waiting for their next attempt, as last read (every `waitingIntervalMs`). */
	waiting(): WaitingSummary;
	/** Called when the number of waiting events changes; returns the cancel function. */
	onWaiting(listener: (summary: WaitingSummary) => void): () => void;
	/** Starts the admin listener. */
	listenAdmin(listen: {port: number; host: string}): Promise<AdminListener>;
	/**
	 * Calls `onExpired` once serve has not been ready (draining aside) for `seconds` in a row.
	 * Returns the cancel function.
	 */
	exitWhenUnready(seconds: number, onExpired: (state: HealthState) => void): () => void;
	stop(): Promise<void>;
};

/** The health monitor (store and platform probes) and the metrics, which read the health for readiness. */
function monitors(options: ServiceOptions): {health: HealthMonitor; metrics: ServeMetrics} {
	const {backend, client} = options;
	const health = new HealthMonitor({
		checkStore: async () => backend.health?.() ?? {ok: true},
		probe: async () => probePlatform(client),
		...(options.probeIntervalMs === undefined ? {} : {probeIntervalMs: options.probeIntervalMs}),
		...(options.failingProbeIntervalMs === undefined ? {} : {failingProbeIntervalMs: options.failingProbeIntervalMs}),
		...(options.storeIntervalMs === undefined ? {} : {storeIntervalMs: options.storeIntervalMs}),
	});
	const metrics = createServeMetrics({
		backendKind: backend.kind,
		...(backend.durability ? {durability: backend.durability.state} : {}),
		...(backend.backlog ? {backlog: async () => backend.backlog?.() ?? {count: 0}} : {}),
		...(backend.waiting ? {waiting: async () => backend.waiting?.() ?? {count: 0}} : {}),
		stats: async () => backend.stats(),
		...(options.maxBacklog === undefined ? {} : {maxBacklog: options.maxBacklog}),
		ready() {
			const state = health.state();
			return {ready: state.status === 'ready', dependencies: {store: state.dependencies.store.ok, platform: state.dependencies.platform.ok}};
		},
	});
	return {health, metrics};
}

/** Calls `onExpired` once the health has been degraded for `seconds` in a row; returns the cancel function. */
function watchUnready(health: HealthMonitor, seconds: number, onExpired: (state: HealthState) => void): () => void {
	let timer: NodeJS.Timeout | undefined;
	const watch = (state: HealthState) => {
		clearTimeout(timer);
		timer = undefined;
		if (state.status === 'degraded') {
			timer = setTimeout(() => {
				onExpired(health.state());
			}, seconds * 1000);
		}
	};

	watch(health.state());
	const off = health.on(watch);
	return () => {
		off();
		clearTimeout(timer);
	};

}

/** The count of waiting events as last read from the store, and who hears when it changes. */
class WaitingWatch {
	summary: WaitingSummary = {count: 0};
	readonly listeners = new Set<(summary: WaitingSummary) => void>();

	constructor(private readonly backend: EventBackend) {}

	async read(): Promise<void> {
		const read = await this.backend.waiting?.().catch(() => undefined);
		if (read === undefined) {
			return;
		}

		const changed = read.count !== this.summary.count;
		this.summary = read;
		if (changed) {
			for (const listener of this.listeners) {
				listener(read);
			}
		}
	}
}

export function createService(options: ServiceOptions): Service {
	const {backend} = options;
	let admin: AdminListener | undefined;
	const waiting = new WaitingWatch(backend);
	let waitingTimer: NodeJS.Timeout | undefined;

	const {health, metrics} = monitors(options);

	return {
		metrics,
		health,
		observer: {
			acknowledged: started => {
				metrics.acknowledged(started);
			},
			stored: ms => {
				metrics.stored(ms);
			},
			forwardRetry() {
				metrics.retry('forward');
			},
		},
		callWatcher: {
			call(operation, statusClass, ms, outcome) {
				metrics.platformCall(operation, statusClass, ms);
				health.reportPlatform(outcome);
			},
		},
		onRequest(entry) {
			if (entry.retryInMs !== undefined) {
				metrics.retry('platform');
			}
		},
		async attach(receiver) {
			receiver.on('event', event => {
				metrics.onEvent(event);
				if (event.type === 'draining') {
					health.markDraining();
				}
			});
			// The platform answers again after failing: waiting answers go now, not at their next attempt.
			let platformOk = true;
			health.on(state => {
				const ok = state.dependencies.platform.ok;
				if (ok && !platformOk) {
					void backend.wake?.().catch(() => undefined);
				}

				platformOk = ok;
			});
			await health.start();
			if (backend.waiting) {
				waitingTimer = setInterval(() => void waiting.read(), options.waitingIntervalMs ?? 2000);
				waitingTimer.unref();
			}
		},
		waiting: () => waiting.summary,
		onWaiting(listener) {
			waiting.listeners.add(listener);
			return () => waiting.listeners.delete(listener);
		},
		async listenAdmin(listen) {
			admin = await startAdmin({health, metrics}, listen);
			return admin;
		},
		exitWhenUnready(seconds, onExpired) {
			return watchUnready(health, seconds, onExpired);
		},
		async stop() {
			clearInterval(waitingTimer);
			health.stop();
			await admin?.close();
		},
	};
}
