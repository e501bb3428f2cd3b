/**
 * The webhook receiver proper (spec §4.2, §6): routes requests (intake/routes.ts), runs each
 * delivery through the intake (intake/intake.ts), hands verified events to an `EventBackend` before
 * answering 200 (persist, then acknowledge), runs the answer for chosen-module events as the
 * backend's job handler, and reports everything as typed events (`on('event', listener)`).
 * Embeddable in-process: `listen({port: 0})`, then point a platform at `${url}/webhook`; or mount
 * `handler` on a server of your own (call `start()` first).
 */
import type {IncomingMessage, ServerResponse} from 'node:http';
import {prepareWebhookSecrets} from '../platform/webhook-signature.js';
import {answerJobs} from './answer/answer-job.js';
import {BacklogLimit} from './store/backlog.js';
import type {BackendStats, EventBackend, ReplayResult, StoredEvent} from './store/backend.js';
import {isoNow} from './clock.js';
import type {ReceiverCounters, ReceiverEvent, ReceiverEventListener} from './events.js';
import {DeliveryRoutes, type Jobs} from './intake/routes.js';
import {forwardJobs} from './forward/forward-job.js';
import {retrySchedule} from './answer/retry-schedule.js';
import {startLostSweep} from './store/lost-sweep.js';
import {platformPort} from './answer/platform-port.js';
import {watchedPort} from './ops/platform-probe.js';
import {defaultBackend, resolveOptions, type CloseResult, type ReceiverOptions, type ResolvedOptions} from './receiver-options.js';
import {ingestFrame, type FrameOutcome} from './intake/frame-intake.js';
import {receiverErrors} from './intake/intake.js';
import {HttpListener, type ListenOptions, type ListenResult} from './intake/transport.js';

export {receiverErrors} from './intake/intake.js';
export {DrainTimeoutError} from './store/memory-backend.js';
export type {ListenOptions, ListenResult} from './intake/transport.js';
export type {FrameOutcome} from './intake/frame-intake.js';
export type {CloseResult, ReceiverObserver, ReceiverOptions} from './receiver-options.js';

export class WebhookReceiver {
	/** Request handler, for mounting on another node:http server. */
	readonly handler: (request: IncomingMessage, response: ServerResponse) => void;
	readonly backend: EventBackend;
	private readonly options: ResolvedOptions;
	private readonly listeners = new Set<ReceiverEventListener>();
	private readonly stats: ReceiverCounters = {received: 0, verified: 0, rejected: 0, duplicates: 0, processing: 0, answered: 0, failed: 0};
	private readonly jobs: Jobs;
	private readonly listener: HttpListener;
	private readonly backlogLimit: BacklogLimit | undefined;
	private readonly routes: DeliveryRoutes;
	private readonly frames: Parameters<typeof ingestFrame>[0];
	/** How often events accepted here are looked for in the store (Redis), ms. */
	private readonly sweepMs: number;
	private readonly createdAt = isoNow();
	private started: Promise<void> | undefined;
	private stopSweep: (() => void) | undefined;
	private closing: Promise<CloseResult> | undefined;
	/** Events that ended an attempt waiting since the stop began: left for the next start or another replica. */
	private readonly leftWaiting = new Set<string>();

	constructor(options: ReceiverOptions) {
		const secrets = options.secrets.map(secret => secret.trim()).filter(secret => secret !== '');
		if (secrets.length === 0) {
			throw new Error('The receiver needs at least one endpoint secret');
		}

		this.options = resolveOptions(options);
		this.sweepMs = options.lostSweepMs ?? 5000;
		const emitStage = (event: ReceiverEvent) => {
			this.emit(event);
		};

		const schedule = options.retry === undefined ? undefined : retrySchedule(options.retry);
		this.jobs = options.forward ? forwardJobs({...options.forward, ...(schedule ? {schedule} : {})}, {counters: this.stats, emit: emitStage, now: isoNow, onRetry: () => options.observer?.forwardRetry?.()}) : answerJobs({
			port: options.callWatcher ? watchedPort(platformPort(options.client), options.callWatcher) : platformPort(options.client),
			model: this.options.model,
			cleanupTimeoutMs: this.options.cleanupTimeoutMs,
			...(schedule ? {schedule} : {}),
			counters: this.stats,
			emit: event => {
				this.emit(event);
			},
			now: isoNow,
		});
		const intake = {keys: prepareWebhookSecrets(secrets), toleranceSeconds: this.options.toleranceSeconds, maxBodyBytes: this.options.maxBodyBytes, replayWindowMs: this.options.replayWindowMs};
		this.backend = options.backend ?? defaultBackend(options, this.options);
		const {backend} = this;
		this.backlogLimit = options.maxBacklog === undefined
			? undefined
			: new BacklogLimit(options.maxBacklog, () => this.stats.processing, backend.backlog ? async () => backend.backlog?.() ?? {count: 0} : undefined, options.backlogPollMs, options.backlogClock, backend.sharesBacklog === true);
		this.routes = new DeliveryRoutes({
			stats: this.stats,
			options: this.options,
			intake,
			backend,
			jobs: this.jobs,
			backlogLimit: this.backlogLimit,
			observer: options.observer,
			forwarding: options.forward !== undefined,
			emit: event => {
				this.emit(event);
			},
		});
		this.frames = {stats: this.stats, intake, backend, jobs: this.jobs, forwarding: options.forward !== undefined, emit: emitStage};
		const {routes} = this;
		this.handler = (request, response) => {
			try {
				routes.route(request, response);
			} catch {
				routes.internalError(response);
			}
		};
		this.listener = new HttpListener(this.handler);
	}

	/** Where the receiver listens, once `listen` resolved. */
	get url(): string | undefined {
		return this.listener.url;
	}

	/** A snapshot of the counters. */
	counters(): ReceiverCounters {
		return {...this.stats};
	}

	/** Whether the receiver is stopping (new deliveries get 503). */
	get isDraining(): boolean {
		return this.routes.draining;
	}

	/** Unfinished events as the --max-backlog bound counts them, and the bound (undefined: none). */
	backlog(): {count: number; limit?: number} {
		return this.backlogLimit ? {count: this.backlogLimit.count, limit: this.backlogLimit.limit} : {count: this.stats.processing};
	}

	/** Subscribes to receiver events; returns the unsubscribe function. */
	on(type: 'event', listener: ReceiverEventListener): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** Starts the backend's processing (resuming what a previous process left unfinished). */
	async start(): Promise<void> {
		this.backlogLimit?.start();
		if (this.backend.kind === 'redis' && this.stopSweep === undefined) {
			// Events accepted here may end on another replica, or be lost with the Redis data.
			this.stopSweep = startLostSweep({backend: this.backend, open: this.jobs.open, intervalMs: this.sweepMs, now: isoNow, emit: event => {
				this.emit(event);
			}});
		}

		this.started ??= this.backend.start(this.jobs.handler, {concurrency: this.options.concurrency});
		return this.started;
	}

	/** Starts processing, then listening (port 0 picks a free port). Rejects with the socket error (EADDRINUSE ...). */
	async listen(options: ListenOptions = {}): Promise<ListenResult> {
		await this.start();
		return this.listener.listen(options);
	}

	/**
	 * Stores one event of the event socket (`listen`: a frame's data) before anything else happens,
	 * then runs its job as for a webhook; `frame` numbers it, `origin` names the socket. Resolves once stored.
	 */
	async ingest(text: string, frame: number, origin: string): Promise<FrameOutcome> {
		if (this.routes.draining) {
			return {kind: 'refused', reason: receiverErrors.shuttingDown};
		}

		return ingestFrame(this.frames, text, frame, origin);
	}

	/** A stored event, as `events show` prints it. */
	async event(id: string): Promise<StoredEvent | undefined> {
		return this.backend.get(id);
	}

	/** Processes a stored event again (the screen's `r`), through this receiver's answer. */
	async replay(id: string): Promise<ReplayResult> {
		return this.backend.replay(id, this.jobs.handler);
	}

	async backendStats(): Promise<BackendStats> {
		return this.backend.stats();
	}

	/**
	 * Stops accepting (new deliveries on open connections get 503, which the platform retries),
	 * lets queued and running jobs finish within `drainTimeoutMs`, then cuts off the rest: with a
	 * retry schedule they are left waiting (for the next start, or another replica), their apology
	 * still due only at the answer deadline; without one their open logs are set FAILED and the
	 * apology is written. Closes the backend.
	 */
	async close(drainTimeoutMs = this.options.drainTimeoutMs): Promise<CloseResult> {
		this.closing ??= this.shutdown(drainTimeoutMs);
		return this.closing;
	}

	private async shutdown(drainTimeoutMs: number): Promise<CloseResult> {
		const deadline = Date.now() + drainTimeoutMs;
		this.routes.draining = true;
		const closingServer = this.listener.beginClose();
		this.emit({type: 'draining', at: isoNow(), jobs: this.stats.processing, timeoutMs: drainTimeoutMs});
		const {cutOff} = this.started ? await this.backend.stop(drainTimeoutMs) : {cutOff: 0};
		await closingServer.finish(deadline);
		this.backlogLimit?.stop();
		this.stopSweep?.();
		await this.backend.close();
		await this.jobs.close?.();
		const counters = this.counters();
		const leftWaiting = this.leftWaiting.size;
		this.emit({type: 'stopped', at: isoNow(), counters, cutOff, leftWaiting});
		return {cutOff, leftWaiting, counters};
	}

	private emit(event: ReceiverEvent): void {
		if (this.routes.draining && event.type === 'stage') {
			if (event.stage === 'waiting') {
				this.leftWaiting.add(event.eventId);
			} else {
				this.leftWaiting.delete(event.eventId);
			}
		}

		for (const listener of this.listeners) {
			try {
				listener(event);
			} catch {
				// A failing view must not break the receiver.
			}
		}
	}
}

/** Creates a webhook receiver; see `WebhookReceiver`. */
export function createReceiver(options: ReceiverOptions): WebhookReceiver {
	return new WebhookReceiver(options);
}
