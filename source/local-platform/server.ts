import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http';
import type {AddressInfo} from 'node:net';
import {Agent} from 'undici';
import {errorCode, errorMessage} from '../format/value.js';
import type {Message, MessageLog} from './records.js';
import {handleBlob} from './content/blob-routes.js';
import {webhookDispatcher} from './chats/external-answer.js';
import {BlobStore} from './content/blobs.js';
import {messageView} from './chats/chat-store.js';
import type {LocalContent} from './content/content-store.js';
import type {ServiceContext} from './context.js';
import {LocalPlatformError} from './errors.js';
import {FaultInjector, performedThen502, type FaultSettings} from './http/faults.js';
import {authenticate} from './http/auth.js';
import {HttpError, readJsonBody, sendError, sendJson} from './http/http.js';
import {answerView} from './sparse.js';
import {assertLoopbackUrl} from './http/loopback.js';
import {resolveOptions, type ResolvedOptions} from './options.js';
import {RequestLog} from './http/request-log.js';
import {buildServices, userAgent, type Services} from './services.js';
import {abortableSleep, unlimitedListeners} from './timers.js';
import type {CompletionRecord, LocalPlatform, LocalPlatformEvent, LocalPlatformOptions, LocalPlatformSettings, RequestRecord} from './types.js';
import type {DeliveryRecord, WebhookDispatcher} from './chats/webhooks.js';

export {defaultModel} from './chats/spaces.js';

/** Composes the resources (services.ts) behind one HTTP server: request log, latency, faults, auth, routing. */
class LocalPlatformServer implements LocalPlatform {
	baseUrl = '';
	private readonly server: Server;
	private readonly services: Services;
	private readonly faults: FaultInjector;
	private readonly requestLog: RequestLog;
	private readonly dispatcher: WebhookDispatcher;
	/** Calls to the model (--llm-url): enough connections that completions of many replicas' slots never queue here. */
	private readonly agent = new Agent({connections: 64});
	/** Every pending sleep listens on this signal (and removes itself when done), so the count is unbounded by design. */
	private readonly stop = unlimitedListeners(new AbortController());
	private readonly background = new Set<Promise<unknown>>();
	private registeredWebhookUrl: string | undefined;
	private closing: Promise<void> | undefined;

	constructor(
		private readonly options: LocalPlatformOptions,
		private readonly resolved: ResolvedOptions,
		readonly blobs: BlobStore,
	) {
		this.faults = new FaultInjector({...options, rules: options.faults ?? []});
		const context: ServiceContext = {
			limits: resolved.limits,
			signal: this.stop.signal,
			clock: resolved.clock,
			baseUrl: () => this.baseUrl,
			emit: event => {
				this.emit(event);
			},
			track: promise => {
				this.track(promise);
			},
		};
		this.requestLog = new RequestLog(resolved.clock, resolved.limits.maxRequestLog, event => {
			this.emit(event);
		});
		if (options.webhookUrl !== undefined) {
			this.setWebhookUrl(options.webhookUrl);
		}

		this.dispatcher = webhookDispatcher(resolved, userAgent, event => {
			this.emit(event);
		});
		this.services = buildServices({
			context,
			options: resolved,
			blobs,
			agent: this.agent,
			dispatcher: this.dispatcher,
			webhookUrl: () => this.registeredWebhookUrl,
			llmModel: options.llmModel,
			llmApiKey: options.llmApiKey,
		});
		this.server = createServer((request, response) => {
			this.track(this.handle(request, response));
		});
	}

	async listen(host: string, port: number): Promise<void> {
		await new Promise<void>((resolve, reject) => {
			this.server.once('error', reject);
			this.server.listen(port, host, () => {
				this.server.off('error', reject);
				resolve();
			});
		}).catch((error: unknown) => {
			const code = errorCode(error) === 'EADDRINUSE' ? 'local-port-in-use' : 'local-listen-failed';
			throw new LocalPlatformError(code, {host, port, reason: errorMessage(error)}, `Cannot listen on ${host}:${port}: ${errorMessage(error)}`, {cause: error});
		});
		const address = this.server.address() as AddressInfo;
		const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
		this.baseUrl = `http://${hostPart}:${address.port}`;
	}

	// ---- public inspection API -------------------------------------------------------------

	get appId(): string {
		return this.resolved.appId;
	}

	get userId(): string {
		return this.resolved.userId;
	}

	get companyId(): string {
		return this.resolved.companyId;
	}

	get endpointSecret(): string {
		return this.resolved.endpointSecret;
	}

	get assistantId(): string {
		return this.services.spaces.assistantId;
	}

	get apiKey(): string {
		return this.services.keys.current;
	}

	get blobDirectory(): string {
		return this.blobs.directory;
	}

	get webhookUrl(): string | undefined {
		return this.registeredWebhookUrl;
	}

	get deliveries(): readonly DeliveryRecord[] {
		return [...this.dispatcher.records];
	}

	get requests(): readonly RequestRecord[] {
		return [...this.requestLog.records];
	}

	get completions(): readonly CompletionRecord[] {
		return [...this.services.completions.records];
	}

	get operations(): readonly string[] {
		return this.services.router.operations;
	}

	settings(): LocalPlatformSettings {
		const {baseUrl, apiKey, appId, userId, companyId, assistantId, endpointSecret} = this;
		return {baseUrl, apiKey, appId, userId, companyId, assistantId, endpointSecret};
	}

	setWebhookUrl(url?: string): void {
		this.registeredWebhookUrl = url === undefined || url === '' ? undefined : assertLoopbackUrl(url, 'webhookUrl').href;
	}

	setFaults(faults: FaultSettings): void {
		this.faults.set(faults);
	}

	content(id: string): LocalContent | undefined {
		return this.services.contents.get(id);
	}

	message(id: string): Message | undefined {
		const record = this.services.chats.peek(id);
		return record === undefined ? undefined : messageView(record);
	}

	messageLogs(messageId: string): MessageLog[] {
		const message = this.services.chats.peek(messageId);
		return message === undefined ? [] : this.services.logs.of(message);
	}

	async close(): Promise<void> {
		this.closing ??= (async () => {
			this.stop.abort();
			const closed = new Promise<void>(resolve => {
				this.server.close(() => {
					resolve();
				});
			});
			this.server.closeAllConnections();
			await closed;
			await this.dispatcher.close();
			await Promise.allSettled([...this.background]);
			await this.agent.destroy();
			await this.blobs.close();
		})();
		return this.closing;
	}

	// ---- plumbing ----------------------------------------------------------------------------

	private track(promise: Promise<unknown>): void {
		const tracked = promise.catch(() => undefined).finally(() => {
			this.background.delete(tracked);
		});
		this.background.add(tracked);
	}

	private emit(event: LocalPlatformEvent): void {
		try {
			this.options.log?.(event);
		} catch {
			// A failing logger must not break the platform.
		}
	}

	private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
		const url = new URL(request.url ?? '/', 'http://local.invalid');
		const method = (request.method ?? 'GET').toUpperCase();
		const record = this.requestLog.open(request, response, url, method);
		try {
			if (url.pathname === '/health') {
				if (method !== 'GET' && method !== 'HEAD') {
					throw new HttpError(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed on /health`);
				}

				sendJson(response, 200, {status: 'ok'});
				return;
			}

			// Latency is real time even under an injected clock: it exists to slow real clients down.
			if (this.faults.latencyMs > 0) {
				await abortableSleep(this.faults.latencyMs, this.stop.signal);
			}

			if (url.pathname.startsWith('/blob/')) {
				const {contents, ingestion} = this.services;
				await handleBlob(method, url, request, response, {contents, blobs: this.blobs, ingestion, clock: this.resolved.clock});
				return;
			}

			await this.api(request, response, url, method, record);
		} catch (error) {
			const httpError = error instanceof HttpError
				? error
				: new HttpError(500, 'INTERNAL_SERVER_ERROR', `Local platform error: ${errorMessage(error)}`);
			if (response.headersSent) {
				response.destroy();
			} else {
				if (!request.complete) {
					// The body was not read; do not keep the connection for the next request.
					response.setHeader('connection', 'close');
				}

				sendError(response, httpError);
			}
		}
	}

	/** One API call: random fault, auth, body, route, the operation's fault rule, the answer. */
	private async api(request: IncomingMessage, response: ServerResponse, url: URL, method: string, record: RequestRecord): Promise<void> {
		const refused = this.faults.random429or503();
		if (refused !== undefined) {
			record.fault = refused;
			throw this.faults.refusal(refused);
		}

		const caller = authenticate(request, url.pathname, this.services.keys, this.resolved);
		const body = await readJsonBody(request);
		this.requestLog.keepBody(record, body);
		const {route, params} = this.services.router.match(method, url.pathname);
		const fault = this.faults.take(route.operation);
		if (fault === '429' || fault === '503' || fault === '500') {
			const status = fault === '429' ? 429 : (fault === '500' ? 500 : 503);
			record.fault = status;
			throw this.faults.refusal(status);
		}

		const result = await route.handle({method, url, params, query: url.searchParams, body: body.value, caller});
		if (fault === 'perform-502') {
			record.fault = fault;
			throw performedThen502(route.operation);
		}

		if (fault === 'slow') {
			record.fault = fault;
			// Real time even under an injected clock, like the latency: it exists to outlast a real client's deadline.
			await abortableSleep(this.faults.slowMs, this.stop.signal);
		}

		if (fault === 'empty-200') {
			record.fault = fault;
			sendJson(response, 200, null);
			return;
		}

		sendJson(response, result.status, answerView(this.resolved.answers, route.operation, result.body));
	}
}

export async function startLocalPlatform(options: LocalPlatformOptions = {}): Promise<LocalPlatform> {
	const resolved = resolveOptions(options);
	const blobs = await BlobStore.create(resolved.limits.maxBlobBytes, resolved.limits.maxTotalBlobBytes);
	let platform: LocalPlatformServer;
	try {
		platform = new LocalPlatformServer(options, resolved, blobs);
	} catch (error) {
		await blobs.close();
		throw error;
	}

	try {
		await platform.listen(resolved.host, resolved.port);
	} catch (error) {
		await platform.close();
		throw error;
	}

	return platform;
}
