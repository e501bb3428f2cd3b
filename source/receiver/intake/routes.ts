/**
 * The receiver's HTTP side (spec §4.2): routes each request, runs a delivery through the intake
 * (intake.ts), hands the verified event to the backend before answering 200 (persist, then
 * acknowledge), and reports each request as a typed event. The receiver (server.ts) owns one.
 */
import {createHash} from 'node:crypto';
import type {IncomingMessage, ServerResponse} from 'node:http';
import {sendJson} from '../../platform/json-response.js';
import type {BacklogLimit} from '../store/backlog.js';
import {BackendUnavailableError, type EventBackend, type JobHandler} from '../store/backend.js';
import type {OpenJobs} from '../store/open-jobs.js';
import {isoNow} from '../clock.js';
import type {AcceptedEvent, ReceiverCounters, ReceiverEvent, RejectionReason} from '../events.js';
import type {ReceiverObserver, ResolvedOptions} from '../receiver-options.js';
import {checkHeaders, intakeBody, receiverErrors, tooLargeError, type Acceptance, type IntakeConfig, type Rejection} from './intake.js';
import {answerAndLinger, deliveryHeaders, pathOf, readBody, remoteOf, sendSuccess} from './transport.js';

export type Jobs = {handler: JobHandler; track(eventId: string, chatId?: string): void; open: OpenJobs; close?: () => Promise<void>};

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

/** The 503 of a full backlog (made only when it is sent). */
function backlogFull(eventId: string): Omit<Rejection, 'kind'> {
	return {status: 503, reason: 'backlog-full', error: receiverErrors.backlogFull, headers: {'retry-after': '30'}, eventId};
}

/** What the routes share with the receiver: its counters, settings, backend, jobs and events. */
export type RouteContext = {
	stats: ReceiverCounters;
	options: ResolvedOptions;
	intake: IntakeConfig;
	backend: EventBackend;
	jobs: Jobs;
	backlogLimit: BacklogLimit | undefined;
	observer: ReceiverObserver | undefined;
	forwarding: boolean;
	emit: (event: ReceiverEvent) => void;
};

export class DeliveryRoutes {
	/** Whether the receiver is stopping (new deliveries get 503). */
	draining = false;
	private readonly stats: ReceiverCounters;
	private readonly options: ResolvedOptions;
	private readonly intake: IntakeConfig;
	private readonly backend: EventBackend;
	private readonly jobs: Jobs;
	private readonly backlogLimit: BacklogLimit | undefined;
	private readonly observer: ReceiverObserver | undefined;
	/** Forwarding: every verified event is stored for processing (handed to the developer's handler). */
	private readonly forwarding: boolean;
	private readonly emit: (event: ReceiverEvent) => void;
	private requestCount = 0;

	constructor(context: RouteContext) {
		this.stats = context.stats;
		this.options = context.options;
		this.intake = context.intake;
		this.backend = context.backend;
		this.jobs = context.jobs;
		this.backlogLimit = context.backlogLimit;
		this.observer = context.observer;
		this.forwarding = context.forwarding;
		this.emit = context.emit;
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

	internalError(response: ServerResponse): void {
		if (response.headersSent) {
			response.destroy();
		} else {
			sendJson(response, 500, {success: false, error: 'Internal error'});
		}
	}

	/** Routes a request. Synchronous up to the backend: the hot path creates one promise. */
	route(request: IncomingMessage, response: ServerResponse): void {
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
		if (this.backlogLimit && !this.backlogLimit.reserve(counted)) {
			this.reject(request, response, seq, backlogFull(decision.event.id));
			return;
		}

		const storing = this.observer ? performance.now() : 0;
		this.backend.accept(decision.event, this.backlogLimit?.storeLimit(counted)).then(result => {
			this.observer?.stored(performance.now() - storing);
			if (result === 'full') {
				this.reject(request, response, seq, backlogFull(decision.event.id));
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
		this.emit(acceptedEvent(view, at, seq, remoteAddress));
		sendSuccess(response);
		this.observer?.acknowledged(started);
	}
}

/**
 * The `accepted` event of a view. One literal (no spread of the view): every accepted event has
 * the same hidden class. `via`: the event socket's (listen), undefined for a webhook.
 */
export function acceptedEvent(view: Acceptance['view'], at: string, request: number, remoteAddress: string, via?: 'event-socket'): AcceptedEvent {
	return {
		type: 'accepted',
		at,
		request,
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
		via,
	};
}

/** With forwarding, every verified event is processed (the developer's handler decides what it means). */
export function forwardAll(decision: Acceptance): void {
	const {event, view} = decision;
	if (event.status !== 'received') {
		event.status = 'received';
		delete event.note;
	}

	view.handling = 'queued';
	view.eventId = event.id;
	delete view.missing;
}
