import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http';
import type {AddressInfo} from 'node:net';
import {defaultModel} from '../config/settings.js';
import type {PlatformClient} from '../platform/client.js';
import {eventTypes} from '../platform/types.js';
import type {KeyObject} from 'node:crypto';
import {sendJson} from '../platform/json-response.js';
import {prepareWebhookSecrets, verifyWebhookSignature, webhookHeaders} from '../platform/webhook-signature.js';
import {EventIdStore, type EventIdStoreOptions} from './dedupe.js';
import type {
	AcceptedEvent,
	JobStage,
	ReceiverCounters,
	ReceiverEvent,
	ReceiverEventListener,
	RejectionReason,
} from './events.js';
import {answerChosenEvent} from './answer.js';
import {parseChosenEvent, type ChosenJob} from './chosen-event.js';
import {platformPort} from './platform-port.js';
import {JobQueue} from './queue.js';

/** Error bodies of the webhook route (spec §4.2, §7). */
export const receiverErrors = {
	missingHeaders: 'Missing signature headers',
	invalidSignature: 'Invalid signature',
	invalidJson: 'Invalid JSON body',
	notAnObject: 'Invalid event: the body must be a JSON object',
	tooLarge: 'Request body too large (limit 1 MiB)',
	busy: 'Receiver busy, retry later',
	shuttingDown: 'Receiver shutting down, retry later',
} as const;

export type ReceiverOptions = {
	/** Platform client for the chosen-module processing; each call names the event's user and company. */
	client: PlatformClient;
	/** Endpoint secrets; a delivery signed with any of them verifies (for rotating the secret). */
	secrets: readonly string[];
	/** Largest accepted difference between X-Platform-Created-At and now, seconds. Default 300. */
	toleranceSeconds?: number;
	/** Chosen-module jobs run at once. Default 8. */
	concurrency?: number;
	/** Jobs that may wait beyond those running; past it deliveries get 503 and are retried by the platform. Default 10 000. */
	maxPending?: number;
	/** Chat-completion model. Default AZURE_GPT_4o_2024_1120. */
	model?: string;
	/** Default drain time of `close()`, ms. Default 25 000. */
	drainTimeoutMs?: number;
	/** Time allowed to each failure-path call (closing a log, the apology), ms. Default 10 000. */
	cleanupTimeoutMs?: number;
	/** Largest webhook body, bytes. Default 1 MiB. */
	maxBodyBytes?: number;
	/** Exactly-once store options, or a store to share. Default: 24 h / 100 000 ids. */
	dedupe?: EventIdStoreOptions | EventIdStore;
};

export type ListenOptions = {port?: number; host?: string};

export type ListenResult = {url: string; host: string; port: number};

export type CloseResult = {
	/** Jobs still open at the drain deadline, cut off with logs FAILED and the apology. */
	cutOff: number;
	counters: ReceiverCounters;
};

/** Raised into jobs still open at the drain deadline. */
export class DrainTimeoutError extends Error {
	override name = 'DrainTimeoutError';

	constructor(timeoutMs: number) {
		super(`the receiver shut down and the job did not finish within the ${formatSeconds(timeoutMs)} drain time`);
	}
}

let lastIsoMs = 0;
let lastIso = new Date(0).toISOString();

/** The current time as ISO 8601, computed once per millisecond (every event carries one). */
function isoNow(): string {
	const now = Date.now();
	if (now !== lastIsoMs) {
		lastIsoMs = now;
		lastIso = new Date(now).toISOString();
	}

	return lastIso;
}

function pathOf(url: string | undefined): string {
	if (!url) {
		return '/';
	}

	const query = url.indexOf('?');
	return query === -1 ? url : url.slice(0, query);
}

function formatSeconds(ms: number): string {
	const seconds = ms / 1000;
	return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

type DeliveryHeaders = {contentLength: string; signature: string; createdAt: string; id: string};

/**
 * The headers the webhook route reads, straight from rawHeaders (first occurrence of each):
 * cheaper than `request.headers`, which builds an object of every header on first use.
 */
function deliveryHeaders(request: IncomingMessage): DeliveryHeaders {
	const found: DeliveryHeaders = {contentLength: '', signature: '', createdAt: '', id: ''};
	const raw = request.rawHeaders;
	for (let index = 0; index + 1 < raw.length; index += 2) {
		const name = raw[index]!;
		if (name.length === 14 && name.toLowerCase() === 'content-length') {
			found.contentLength ||= raw[index + 1]!.trim();
		} else if (name.length > 11 && (name.charCodeAt(0) === 120 || name.charCodeAt(0) === 88)) {
			// Starts with x/X: one of the X-Platform-* headers, perhaps.
			const lower = name.toLowerCase();
			if (lower === webhookHeaders.signature) {
				found.signature ||= raw[index + 1]!.trim();
			} else if (lower === webhookHeaders.createdAt) {
				found.createdAt ||= raw[index + 1]!.trim();
			} else if (lower === webhookHeaders.id) {
				found.id ||= raw[index + 1]!.trim();
			}
		}
	}

	return found;
}

function remoteOf(request: IncomingMessage): string {
	const address = request.socket.remoteAddress ?? 'unknown';
	return address.startsWith('::ffff:') ? address.slice(7) : address;
}

const successBody = Buffer.from('{"success":true}');
const successHeaders = {'content-type': 'application/json; charset=utf-8', 'content-length': String(successBody.length)};

/** The 200 `{"success":true}` every verified event gets (prebuilt: it is the hot path). */
function sendSuccess(response: ServerResponse): void {
	response.writeHead(200, successHeaders);
	response.end(successBody);
}

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringField(object: Record<string, unknown> | undefined, field: string): string | undefined {
	const value = object?.[field];
	return typeof value === 'string' ? value : undefined;
}

/**
 * The webhook receiver (spec §4.2, §6): a node:http server with `GET /health` and `POST /webhook`.
 * It verifies each delivery (HMAC-SHA256 of the raw bytes under any configured secret, Created-At
 * within the tolerance), accepts each event id once, logs user messages, answers chosen-module
 * events on a bounded queue without holding up the acknowledgement, and reports everything as
 * typed events (`on('event', listener)`). Embeddable in-process: `listen({port: 0})`, then point a
 * platform at `${url}/webhook`; or mount `handler` on a server of your own.
 */
export class WebhookReceiver {
	/** Request handler, for mounting on another node:http server. */
	readonly handler: (request: IncomingMessage, response: ServerResponse) => void;
	private readonly options: Required<Omit<ReceiverOptions, 'dedupe'>>;
	private readonly keys: KeyObject[];
	private readonly store: EventIdStore;
	private readonly queue: JobQueue;
	private readonly listeners = new Set<ReceiverEventListener>();
	private readonly stats: ReceiverCounters = {received: 0, verified: 0, rejected: 0, duplicates: 0, processing: 0, answered: 0, failed: 0};
	private server: Server | undefined;
	private requestCount = 0;
	private draining = false;
	private closing: Promise<CloseResult> | undefined;
	private address: ListenResult | undefined;

	constructor(options: ReceiverOptions) {
		const secrets = options.secrets.map(secret => secret.trim()).filter(secret => secret !== '');
		if (secrets.length === 0) {
			throw new Error('The receiver needs at least one endpoint secret');
		}

		this.options = {
			client: options.client,
			secrets,
			toleranceSeconds: options.toleranceSeconds ?? 300,
			concurrency: options.concurrency ?? 8,
			maxPending: options.maxPending ?? 10_000,
			model: options.model ?? defaultModel,
			drainTimeoutMs: options.drainTimeoutMs ?? 25_000,
			cleanupTimeoutMs: options.cleanupTimeoutMs ?? 10_000,
			maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
		};
		this.keys = prepareWebhookSecrets(secrets);
		this.store = options.dedupe instanceof EventIdStore ? options.dedupe : new EventIdStore(options.dedupe);
		this.queue = new JobQueue(this.options.concurrency, this.options.maxPending);
		this.handler = (request, response) => {
			try {
				this.handle(request, response);
			} catch {
				this.internalError(response);
			}
		};
	}

	/** The number of endpoint secrets in use. */
	get secretCount(): number {
		return this.options.secrets.length;
	}

	/** Where the receiver listens, once `listen` resolved. */
	get url(): string | undefined {
		return this.address?.url;
	}

	/** A snapshot of the counters. */
	counters(): ReceiverCounters {
		return {...this.stats};
	}

	/** Subscribes to receiver events; returns the unsubscribe function. */
	on(type: 'event', listener: ReceiverEventListener): () => void {
		void type;
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	off(type: 'event', listener: ReceiverEventListener): void {
		void type;
		this.listeners.delete(listener);
	}

	/** Starts listening (port 0 picks a free port). Rejects with the socket error (EADDRINUSE ...). */
	async listen(options: ListenOptions = {}): Promise<ListenResult> {
		if (this.server) {
			throw new Error('The receiver is already listening');
		}

		const host = options.host ?? '127.0.0.1';
		const server = createServer({requestTimeout: 30_000, headersTimeout: 15_000, keepAliveTimeout: 5000}, this.handler);
		this.server = server;
		await new Promise<void>((resolve, reject) => {
			const onError = (error: Error) => {
				this.server = undefined;
				reject(error);
			};

			server.once('error', onError);
			server.listen(options.port ?? 8080, host, () => {
				server.off('error', onError);
				resolve();
			});
		});
		const address = server.address() as AddressInfo;
		const shownHost = address.family === 'IPv6' || address.address.includes(':') ? `[${address.address}]` : address.address;
		this.address = {url: `http://${shownHost}:${address.port}`, host: address.address, port: address.port};
		return this.address;
	}

	/**
	 * Stops accepting (new deliveries on open connections get 503, which the platform retries),
	 * lets queued and running jobs finish within `drainTimeoutMs`, then cuts off the rest: their
	 * open logs are set FAILED and the apology is written, so no log is left RUNNING.
	 */
	async close(drainTimeoutMs = this.options.drainTimeoutMs): Promise<CloseResult> {
		this.closing ??= this.shutdown(drainTimeoutMs);
		return this.closing;
	}

	/** Same as `close`. */
	async drain(timeoutMs = this.options.drainTimeoutMs): Promise<CloseResult> {
		return this.close(timeoutMs);
	}

	private async shutdown(drainTimeoutMs: number): Promise<CloseResult> {
		const deadline = Date.now() + drainTimeoutMs;
		this.draining = true;
		const {server} = this;
		const serverClosed = server
			? new Promise<void>(resolve => {
				server.close(() => {
					resolve();
				});
				server.closeIdleConnections();
			})
			: Promise.resolve();
		this.emit({type: 'draining', at: isoNow(), jobs: this.queue.size, timeoutMs: drainTimeoutMs});
		const idle = await this.queue.whenIdle(drainTimeoutMs);
		let cutOff = 0;
		if (!idle) {
			cutOff = this.queue.size;
			// Each cut-off job makes at most three bounded failure-path calls (two logs, the apology).
			await this.queue.abortAll(new DrainTimeoutError(drainTimeoutMs), (this.options.cleanupTimeoutMs * 3) + 1000);
		}

		if (server) {
			// Requests still being read get until the deadline (at least a moment) to be answered; every
			// answer while draining closes its connection, so this ends as soon as they are done.
			let timer: NodeJS.Timeout | undefined;
			await Promise.race([serverClosed, new Promise<void>(resolve => {
				timer = setTimeout(resolve, Math.max(200, deadline - Date.now()));
			})]);
			clearTimeout(timer);
			server.closeAllConnections();
			await serverClosed;
		}

		const counters = this.counters();
		this.emit({type: 'stopped', at: isoNow(), counters, cutOff});
		return {cutOff, counters};
	}

	private emit(event: ReceiverEvent): void {
		for (const listener of this.listeners) {
			try {
				listener(event);
			} catch {
				// A failing view must not break the receiver.
			}
		}
	}

	private reject(request: IncomingMessage, response: ServerResponse, seq: number, status: number, reason: RejectionReason, error: string, extra: {eventId?: string; headers?: Record<string, string>} = {}): void {
		this.stats.rejected++;
		sendJson(response, status, {success: false, error}, extra.headers);
		this.emit({
			type: 'rejected',
			at: isoNow(),
			request: seq,
			method: request.method ?? 'GET',
			path: pathOf(request.url),
			remoteAddress: remoteOf(request),
			status,
			reason,
			error,
			...(extra.eventId ? {eventId: extra.eventId} : {}),
		});
	}

	private internalError(response: ServerResponse): void {
		if (response.headersSent) {
			response.destroy();
		} else {
			sendJson(response, 500, {success: false, error: 'Internal error'});
		}
	}

	/** Routes a request. Synchronous on purpose: the hot path creates no promise. */
	private handle(request: IncomingMessage, response: ServerResponse): void {
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
		if (path === '/health' || path === '/webhook') {
			if (path === '/health' || method !== 'POST') {
				const allow = path === '/health' ? 'GET, HEAD' : 'POST';
				request.resume();
				this.reject(request, response, seq, 405, 'method-not-allowed', `Method ${method} not allowed on ${path}; use ${allow.split(',')[0]}`, {headers: {allow}});
				return;
			}

			this.readWebhook(request, response, seq);
			return;
		}

		request.resume();
		this.reject(request, response, seq, 404, 'not-found', `Not found: ${path}; the receiver serves POST /webhook and GET /health`);
	}

	/**
	 * Reads the raw body of a delivery with plain listeners (no async iterator: leaving one early
	 * destroys the socket, and the 413 must still reach the sender), then handles it.
	 */
	private readWebhook(request: IncomingMessage, response: ServerResponse, seq: number): void {
		const headers = deliveryHeaders(request);
		const limit = this.options.maxBodyBytes;
		if (Number(headers.contentLength || '0') > limit) {
			this.tooLarge(request, response, seq, headers.id);
			return;
		}

		const chunks: Buffer[] = [];
		let size = 0;
		let finished = false;
		request.on('data', (chunk: Buffer) => {
			if (finished) {
				return;
			}

			size += chunk.length;
			if (size > limit) {
				finished = true;
				request.pause();
				this.tooLarge(request, response, seq, headers.id);
				return;
			}

			chunks.push(chunk);
		});
		request.on('end', () => {
			if (finished) {
				return;
			}

			finished = true;
			try {
				this.handleWebhook(request, response, seq, headers, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
			} catch {
				this.internalError(response);
			}
		});
		request.on('error', () => {
			finished = true;
		});
	}

	/** 413 at once, closing the connection rather than reading the rest of a huge body. */
	private tooLarge(request: IncomingMessage, response: ServerResponse, seq: number, headerId: string): void {
		const {socket} = request;
		response.once('finish', () => {
			socket?.destroySoon();
		});
		this.reject(request, response, seq, 413, 'body-too-large', receiverErrors.tooLarge.replace('1 MiB', formatBytes(this.options.maxBodyBytes)), {
			headers: {connection: 'close'},
			...(headerId ? {eventId: headerId} : {}),
		});
	}

	private handleWebhook(request: IncomingMessage, response: ServerResponse, seq: number, headers: DeliveryHeaders, body: Buffer): void {
		const headerId = headers.id || undefined;
		const idExtra = headerId ? {eventId: headerId} : {};
		const {signature, createdAt} = headers;
		if (!signature || !createdAt) {
			this.reject(request, response, seq, 400, 'missing-signature-headers', receiverErrors.missingHeaders, idExtra);
			return;
		}

		const check = verifyWebhookSignature({body, signature, createdAt, secrets: this.keys, toleranceSeconds: this.options.toleranceSeconds});
		if (!check.ok) {
			this.reject(request, response, seq, 400, check.reason, receiverErrors.invalidSignature, idExtra);
			return;
		}

		let parsed: unknown;
		try {
			parsed = JSON.parse(body.toString('utf8')) as unknown;
		} catch {
			this.reject(request, response, seq, 400, 'invalid-json', receiverErrors.invalidJson, idExtra);
			return;
		}

		if (!isRecord(parsed)) {
			this.reject(request, response, seq, 400, 'not-an-object', receiverErrors.notAnObject, idExtra);
			return;
		}

		if (this.draining) {
			this.reject(request, response, seq, 503, 'shutting-down', receiverErrors.shuttingDown, {headers: {'retry-after': '5', connection: 'close'}, ...idExtra});
			return;
		}

		const eventId = stringField(parsed, 'id') || headerId;
		const eventType = stringField(parsed, 'event') ?? '(none)';
		const payload = isRecord(parsed.payload) ? parsed.payload : undefined;
		const at = isoNow();
		const remoteAddress = remoteOf(request);
		if (eventId && this.store.has(eventId)) {
			this.stats.verified++;
			this.stats.duplicates++;
			const chatId = stringField(payload, 'chatId') ?? stringField(payload, 'chatid');
			this.emit({type: 'duplicate', at, request: seq, remoteAddress, status: 200, eventId, eventType, ...(chatId ? {chatId} : {})});
			sendSuccess(response);
			return;
		}

		const accepted: AcceptedEvent = {
			type: 'accepted',
			at,
			request: seq,
			remoteAddress,
			status: 200,
			...(eventId ? {eventId} : {}),
			eventType,
			handling: 'unhandled',
			secretIndex: check.secretIndex,
		};
		const userId = stringField(parsed, 'userId');
		const companyId = stringField(parsed, 'companyId');
		if (userId) {
			accepted.userId = userId;
		}

		if (companyId) {
			accepted.companyId = companyId;
		}

		let job: ChosenJob | undefined;
		if (eventType === eventTypes.userMessageCreated) {
			accepted.handling = 'logged';
			const chatId = stringField(payload, 'chatId');
			const text = stringField(payload, 'text');
			if (chatId !== undefined) {
				accepted.chatId = chatId;
			}

			if (text !== undefined) {
				accepted.text = text;
			}
		} else if (eventType === eventTypes.externalModuleChosen) {
			const chatId = stringField(payload, 'chatid');
			const userMessage = isRecord(payload?.userMessage) ? payload.userMessage : undefined;
			const text = stringField(userMessage, 'text');
			if (chatId !== undefined) {
				accepted.chatId = chatId;
			}

			if (text !== undefined) {
				accepted.text = text;
			}

			// Without an id the event cannot be deduplicated; a local name still lets the log follow its job.
			const result = parseChosenEvent(parsed, eventId ?? `no-id-request-${seq}`);
			if ('missing' in result) {
				accepted.handling = 'invalid';
				accepted.missing = result.missing;
			} else if (this.queue.size >= this.options.concurrency + this.options.maxPending) {
				this.reject(request, response, seq, 503, 'busy', receiverErrors.busy, {headers: {'retry-after': '5'}, ...idExtra});
				return;
			} else {
				accepted.handling = 'queued';
				accepted.eventId = result.job.eventId;
				job = result.job;
			}
		}

		if (eventId) {
			this.store.add(eventId);
		}

		this.stats.verified++;
		if (accepted.handling === 'invalid') {
			this.stats.failed++;
		}

		if (job) {
			this.stats.processing++;
		}

		// The event is logged before the answer goes out (user messages are logged "before responding").
		this.emit(accepted);
		sendSuccess(response);
		if (job) {
			this.enqueue(job);
		}
	}

	private enqueue(job: ChosenJob): void {
		const started = performance.now();
		const stage = (stageName: JobStage, extra: {documents?: number; durationMs?: number; reason?: string; cleanup?: {logsFailed: number; apologyWritten: boolean; errors: string[]}} = {}) => {
			this.emit({type: 'stage', at: isoNow(), eventId: job.eventId, chatId: job.chatId, stage: stageName, ...extra});
		};

		this.queue.push(async signal => {
			const outcome = await answerChosenEvent({
				port: platformPort(this.options.client),
				job,
				model: this.options.model,
				signal,
				cleanupTimeoutMs: this.options.cleanupTimeoutMs,
				onStage(update) {
					if (update.stage === 'searching') {
						stage('searching');
					} else if (update.stage === 'generating') {
						stage('generating', {documents: update.documents});
					}
				},
			});
			this.stats.processing--;
			const durationMs = Math.round(performance.now() - started);
			if (outcome.ok) {
				this.stats.answered++;
				stage('answered', {documents: outcome.documents, durationMs});
			} else {
				this.stats.failed++;
				stage('failed', {durationMs, reason: outcome.reason, cleanup: outcome.cleanup});
			}
		});
	}
}

function formatBytes(bytes: number): string {
	if (bytes % (1024 * 1024) === 0) {
		return `${bytes / 1024 / 1024} MiB`;
	}

	if (bytes % 1024 === 0) {
		return `${bytes / 1024} KiB`;
	}

	return `${bytes} bytes`;
}

/** Creates a webhook receiver; see `WebhookReceiver`. */
export function createReceiver(options: ReceiverOptions): WebhookReceiver {
	return new WebhookReceiver(options);
}
