import {createServer, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';
import {Agent} from 'undici';
import {errorCode, errorMessage} from '../format/value.js';
import type {LocalContent, Message, MessageLog} from './records.js';
import {webhookDispatcher} from './chats/external-answer.js';
import {BlobStore} from './content/blobs.js';
import {messageView} from './chats/chat-store.js';
import type {ServiceContext} from './context.js';
import {LocalPlatformError} from './errors.js';
import {FaultInjector, type FaultSettings} from './http/faults.js';
import {assertLoopbackUrl} from './http/loopback.js';
import {resolveOptions, type ResolvedOptions} from './options.js';
import {handleRequest, type Pipeline} from './http/pipeline.js';
import {RequestLog} from './http/request-log.js';
import {buildServices, userAgent, type Services} from './services.js';
import {unlimitedListeners} from './timers.js';
import type {CompletionRecord, LocalPlatform, LocalPlatformEvent, LocalPlatformOptions, LocalPlatformSettings, RequestRecord} from './types.js';
import type {DeliveryRecord, WebhookDispatcher} from './chats/webhooks.js';
import {EventSocketHub} from './chats/event-socket.js';
import type {WebhookEvent} from '../platform/types.js';

export {defaultModel} from './chats/spaces.js';

/** Composes the resources (services.ts) behind one HTTP server; each request takes the way of http/pipeline.ts (request log, latency, faults, auth, routing). */
class LocalPlatformServer implements LocalPlatform {
	baseUrl = '';
	private readonly server: Server;
	private readonly services: Services;
	private readonly faults: FaultInjector;
	private readonly requestLog: RequestLog;
	private readonly dispatcher: WebhookDispatcher;
	private readonly hub: EventSocketHub;
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
		this.hub = new EventSocketHub(resolved.eventSocket);
		this.services = buildServices({
			eventSocket: this.hub,
			context,
			options: resolved,
			blobs,
			agent: this.agent,
			dispatcher: this.dispatcher,
			webhookUrl: () => this.registeredWebhookUrl,
			llmModel: options.llmModel,
			llmApiKey: options.llmApiKey,
		});
		const pipeline: Pipeline = {
			requestLog: this.requestLog,
			faults: this.faults,
			services: this.services,
			blobs,
			eventSocket: this.hub,
			resolved,
			signal: this.stop.signal,
		};
		this.server = createServer((request, response) => {
			this.track(handleRequest(pipeline, request, response));
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

	get eventSocket(): {opened: number; open: number; sent: number} {
		return {opened: this.hub.opened, open: this.hub.open, sent: this.hub.sent};
	}

	publishEvent(event: WebhookEvent<unknown>): number {
		return this.hub.publish(event);
	}

	dropEventStreams(refuseMs = 0): void {
		if (refuseMs > 0) {
			this.hub.refuseFor(refuseMs);
		} else {
			this.hub.dropAll();
		}
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
			this.hub.close();
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
