/**
 * The webhook receiver proper (spec §4.2, §6): routes requests, runs each delivery through the
 * intake (intake.ts), hands verified events to an `EventBackend` before answering 200 (persist,
 * then acknowledge), runs the answer for chosen-module events as the backend's job handler, and
 * reports everything as typed events (`on('event', listener)`). Embeddable in-process:
 * `listen({port: 0})`, then point a platform at `${url}/webhook`; or mount `handler` on a server of
 * your own (call `start()` first).
 */
import {createHash} from 'node:crypto';
import type {IncomingMessage, ServerResponse} from 'node:http';
import {sendJson} from '../platform/json-response.js';
import {prepareWebhookSecrets} from '../platform/webhook-signature.js';
import {answerJobs} from './answer/answer-job.js';
import {BacklogLimit} from './store/backlog.js';
import {BackendUnavailableError, type BackendStats, type EventBackend, type JobHandler, type ReplayResult, type StoredEvent} from './store/backend.js';
import {isoNow} from './clock.js';
import type {ReceiverCounters, ReceiverEvent, ReceiverEventListener, RejectionReason} from './events.js';
import {checkHeaders, intakeBody, receiverErrors, tooLargeError, type Acceptance, type IntakeConfig, type Rejection} from './intake/intake.js';
import {forwardJobs} from './forward/forward-job.js';
import {retrySchedule} from './answer/retry-schedule.js';
import {startLostSweep} from './store/lost-sweep.js';
import type {OpenJobs} from './store/open-jobs.js';
import {platformPort} from './answer/platform-port.js';
import {watchedPort} from './ops/platform-probe.js';
import {defaultBackend, resolveOptions, type CloseResult, type ReceiverObserver, type ReceiverOptions, type ResolvedOptions} from './receiver-options.js';
import {answerAndLinger, deliveryHeaders, HttpListener, pathOf, readBody, remoteOf, sendSuccess, type ListenOptions, type ListenResult} from './intake/transport.js';

export {receiverErrors} from './intake/intake.js';
export {DrainTimeoutError} from './store/memory-backend.js';
export type {ListenOptions, ListenResult} from './intake/transport.js';
export type {CloseResult, ReceiverObserver, ReceiverOptions} from './receiver-options.js';

type Jobs = {handler: JobHandler; track(eventId: string, chatId?: string): void; open: OpenJobs; close?: () => Promise<void>};

/** The id intake gives an event that names none; replaced at once by the body's hash. */
const noIdPlaceholder = 'no-id';

/** Gives an event without an id `body-<first 32 hex digits of the body's SHA-256>`. */
function bodyIdentify(decision: Acceptance, body: Buffer): void {
	const id = `body-${createHash('sha256').update(body).digest('hex').slice(0, 32)}`;
	decision.event.id = id;
	if (decision.view.eventId === noIdPlaceholder) {
		decision.view.eventId = id;
	}
}

export class WebhookReceiver {
	/** Request handler, for mounting on another node:http server. */
	readonly handler: (request: IncomingMessage, response: ServerResponse) => void;
	readonly backend: EventBackend;
	private readonly options: ResolvedOptions;
	private readonly intake: IntakeConfig;
	private readonly listeners = new Set<ReceiverEventListener>();
	private readonly stats: ReceiverCounters = {received: 0, verified: 0, rejected: 0, duplicates: 0, processing: 0, answered: 0, failed: 0};
	private readonly jobs: Jobs;
	private readonly listener: HttpListener;
	private readonly backlogLimit: BacklogLimit | undefined;
	private readonly observer: ReceiverObserver | undefined;
	/** Forwarding: every verified event is stored for processing (handed to the developer's handler). */
	private readonly forwarding: boolean;
	/** How often events accepted here are looked for in the store (Redis), ms. */
	private readonly sweepMs: number;
	private requestCount = 0;
	private readonly createdAt = isoNow();
	private draining = false;
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
		this.observer = options.observer;
		this.forwarding = options.forward !== undefined;
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
		this.intake = {keys: prepareWebhookSecrets(secrets), toleranceSeconds: this.options.toleranceSeconds, maxBodyBytes: this.options.maxBodyBytes, replayWindowMs: this.options.replayWindowMs};
		this.backend = options.backend ?? defaultBackend(options, this.options);
		const {backend} = this;
		this.backlogLimit = options.maxBacklog === undefined
			? undefined
			: new BacklogLimit(options.maxBacklog, () => this.stats.processing, backend.backlog ? async () => backend.backlog?.() ?? {count: 0} : undefined, options.backlogPollMs, options.backlogClock, backend.sharesBacklog === true);
		this.handler = (request, response) => {
			try {
				this.route(request, response);
			} catch {
				this.internalError(response);
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
		return this.draining;
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
		this.draining = true;
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
		if (this.draining && event.type === 'stage') {
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

	private reject(request: IncomingMessage, response: ServerResponse, seq: number, rejection: Omit<Rejection, 'kind'>, linger = false): void {
		this.stats.rejected++;
		const body = {success: false, error: rejection.error};
		if (linger) {
			answerAndLinger(request, response, rejection.status, body, rejection.headers ?? {}, this.options.linger);
		} else {
			sendJson(response, rejection.status, body, rejection.headers);
		}

		this.emit({
			type: 'rejected',
			at: isoNow(),
			request: seq,
			method: request.method ?? 'GET',
			path: pathOf(request.url),
			remoteAddress: remoteOf(request),
			status: rejection.status,
			reason: rejection.reason,
			error: rejection.error,
			...(rejection.eventId ? {eventId: rejection.eventId} : {}),
		});
	}

	private internalError(response: ServerResponse): void {
		if (response.headersSent) {
			response.destroy();
		} else {
			sendJson(response, 500, {success: false, error: 'Internal error'});
		}
	}

	/** Routes a request. Synchronous up to the backend: the hot path creates one promise. */
	private route(request: IncomingMessage, response: ServerResponse): void {
		if (this.draining) {
			// No keep-alive while stopping: each connection closes after its answer.
			response.setHeader('connection', 'close');
		}

		const path = pathOf(request.url);
		const method = request.method ?? 'GET';
		if (path === '/health' && (method === 'GET' || method === 'HEAD')) {
			sendJson(response, 200, {status: 'ok'});
			return;
		}

		this.stats.received++;
		const seq = ++this.requestCount;
		if (path === '/webhook' && method === 'POST') {
			this.webhook(request, response, seq);
			return;
		}

		request.resume();
		if (path === '/health' || path === '/webhook') {
			const allow = path === '/health' ? 'GET, HEAD' : 'POST';
			this.reject(request, response, seq, {status: 405, reason: 'method-not-allowed', error: `Method ${method} not allowed on ${path}; use ${allow.split(',')[0] ?? allow}`, headers: {allow}});
			return;
		}

		this.reject(request, response, seq, {status: 404, reason: 'not-found', error: `Not found: ${path}; the receiver serves POST /webhook and GET /health`});
	}

	private webhook(request: IncomingMessage, response: ServerResponse, seq: number): void {
		const headers = deliveryHeaders(request);
		const early = checkHeaders(headers, this.intake);
		if (early) {
			this.reject(request, response, seq, early, true);
			return;
		}

		const started = performance.now();
		readBody(request, this.options.maxBodyBytes, body => {
			try {
				this.delivery(request, response, seq, headers, body, started);
			} catch {
				this.internalError(response);
			}
		}, () => {
			this.reject(request, response, seq, {status: 413, reason: 'body-too-large', error: tooLargeError(this.options.maxBodyBytes), ...(headers.id ? {eventId: headers.id} : {})}, true);
		});
	}

	private delivery(request: IncomingMessage, response: ServerResponse, seq: number, headers: ReturnType<typeof deliveryHeaders>, body: Buffer, started: number): void {
		// One clock read per delivery: the replay window, the signature's tolerance and the stored time.
		const nowMs = Date.now();
		const receivedAt = isoNow(nowMs);
		const decision = intakeBody({headers, body, nowMs, receivedAt, fallbackId: noIdPlaceholder}, this.intake);
		if (decision.kind === 'reject') {
			this.reject(request, response, seq, decision);
			return;
		}

		if (decision.event.id === noIdPlaceholder) {
			// No id in the body or the headers: one derived from the signed body, so a redelivery of
			// the same body is recognised (hashed only for such events, off the common path).
			bodyIdentify(decision, body);
		}

		if (this.draining) {
			this.reject(request, response, seq, {status: 503, reason: 'shutting-down', error: receiverErrors.shuttingDown, headers: {'retry-after': '5', connection: 'close'}, ...(decision.view.eventId ? {eventId: decision.view.eventId} : {})});
			return;
		}

		if (this.forwarding) {
			forwardAll(decision);
		}

		// The slot is taken before the store: deliveries arriving together cannot all pass the bound.
		const counted = decision.event.status === 'received';
		const backlogFull: Omit<Rejection, 'kind'> = {status: 503, reason: 'backlog-full', error: receiverErrors.backlogFull, headers: {'retry-after': '30'}, eventId: decision.event.id};
		if (this.backlogLimit && !this.backlogLimit.reserve(counted)) {
			this.reject(request, response, seq, backlogFull);
			return;
		}

		const storing = this.observer ? performance.now() : 0;
		this.backend.accept(decision.event, this.backlogLimit?.storeLimit(counted)).then(result => {
			this.observer?.stored(performance.now() - storing);
			if (result === 'full') {
				this.reject(request, response, seq, backlogFull);
				return;
			}

			if (counted && result === 'duplicate') {
				this.backlogLimit?.release();
			}

			this.acknowledge(request, response, seq, decision, result === 'duplicate', started);
		}, (error: unknown) => {
			if (counted) {
				this.backlogLimit?.release();
			}

			const busy = error instanceof BackendUnavailableError && error.code === 'backend-busy';
			const reason: RejectionReason = busy ? 'busy' : 'backend-unavailable';
			this.reject(request, response, seq, {status: 503, reason, error: busy ? receiverErrors.busy : receiverErrors.unavailable, headers: {'retry-after': '5'}, eventId: decision.event.id});
		});
	}

	private acknowledge(request: IncomingMessage, response: ServerResponse, seq: number, decision: Acceptance, duplicate: boolean, started: number): void {
		const {view, event} = decision;
		const at = isoNow();
		const remoteAddress = remoteOf(request);
		this.stats.verified++;
		if (duplicate) {
			this.stats.duplicates++;
			this.emit({type: 'duplicate', at, request: seq, remoteAddress, status: 200, eventId: event.id, eventType: view.eventType, chatId: view.chatId || undefined});
			sendSuccess(response);
			this.observer?.acknowledged(started);
			return;
		}

		if (view.handling === 'invalid') {
			this.stats.failed++;
		}

		if (event.status === 'received') {
			this.jobs.track(event.id, event.chatId);
			this.backlogLimit?.accepted();
		}

		// The event is logged before the answer goes out (user messages are logged "before responding").
		// One literal (no spread of the view): every accepted event has the same hidden class.
		this.emit({
			type: 'accepted',
			at,
			request: seq,
			remoteAddress,
			status: 200,
			eventId: view.eventId,
			eventType: view.eventType,
			handling: view.handling,
			chatId: view.chatId,
			userId: view.userId,
			companyId: view.companyId,
			text: view.text,
			missing: view.missing,
			secretIndex: view.secretIndex,
		});
		sendSuccess(response);
		this.observer?.acknowledged(started);
	}
}

/** With forwarding, every verified event is processed (the developer's handler decides what it means). */
function forwardAll(decision: Acceptance): void {
	const {event, view} = decision;
	if (event.status !== 'received') {
		event.status = 'received';
		delete event.note;
	}

	view.handling = 'queued';
	view.eventId = event.id;
	delete view.missing;
}

/** Creates a webhook receiver; see `WebhookReceiver`. */
export function createReceiver(options: ReceiverOptions): WebhookReceiver {
	return new WebhookReceiver(options);
}
