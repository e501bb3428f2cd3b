import {randomBytes} from 'node:crypto';
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http';
import type {AddressInfo} from 'node:net';
import {performance} from 'node:perf_hooks';
import {Agent} from 'undici';
import {eventTypes, type ExternalModuleChosenPayload, type UserMessageCreatedPayload, type WebhookEvent} from '../platform/types.js';
import {webhookPayloadVersion} from '../platform/webhook-signature.js';
import {BlobStore} from './blobs.js';
import {Completions} from './completions.js';
import {ContentStore} from './contents.js';
import {headerValue, now, quotaExceeded, remember, type Caller, type ServiceContext} from './context.js';
import {
	HttpError,
	badRequest,
	notFound,
	objectBody,
	optionalString,
	optionalTimestamp,
	readJsonBody,
	requiredString,
	sendError,
	sendJson,
	type JsonObject,
} from './http.js';
import {newApiKey, newId, newToken, seededRandom} from './ids.js';
import {assertLoopbackUrl, isLoopbackHost} from './loopback.js';
import {abortableSleep, unlimitedListeners} from './timers.js';
import {
	defaultLimits,
	type CompletionRecord,
	type LocalPlatform,
	type LocalPlatformEvent,
	type LocalPlatformLimits,
	type LocalPlatformOptions,
	type LocalPlatformSettings,
	type RequestRecord,
} from './types.js';
import {WebhookDispatcher, type DeliveryRecord} from './webhooks.js';

export const defaultModel = 'AZURE_GPT_4o_2024_1120';
const userAgent = 'platform-tui-local/0.1.0';
/** Request bodies up to this size are kept in the request log. */
const maxLoggedBodyBytes = 64 * 1024;

type KeyRecord = {createdAt: number; expiresAt: number | null};

type ChatRecord = {
	id: string;
	title: string;
	assistantId: string;
	companyId: string;
	userId: string;
	createdAt: string;
	updatedAt: string;
	messageIds: string[];
};

type MessageRecord = {
	id: string;
	chatId: string;
	role: 'USER' | 'ASSISTANT' | 'SYSTEM';
	text: string | null;
	createdAt: string;
	updatedAt: string;
	startedStreamingAt: string | null;
	stoppedStreamingAt: string | null;
	completedAt: string | null;
	userId: string;
	companyId: string;
	logIds: string[];
};

type LogStatus = 'RUNNING' | 'COMPLETED' | 'FAILED';

type LogRecord = {
	id: string;
	messageId: string;
	text: string;
	status: LogStatus;
	order: number;
	createdAt: string;
	updatedAt: string;
	companyId: string;
};

const logStatuses: readonly LogStatus[] = ['RUNNING', 'COMPLETED', 'FAILED'];

function flattenHeaders(request: IncomingMessage): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [name, value] of Object.entries(request.headers)) {
		if (value !== undefined) {
			out[name] = Array.isArray(value) ? value.join(', ') : value;
		}
	}

	return out;
}

function validateRate(value: number | undefined, name: string): number {
	const rate = value ?? 0;
	if (!Number.isFinite(rate) || rate < 0 || rate > 1) {
		throw new TypeError(`${name} must be a number between 0 and 1`);
	}

	return rate;
}

function validateMs(value: number | undefined, fallback: number, name: string): number {
	const ms = value ?? fallback;
	if (!Number.isFinite(ms) || ms < 0) {
		throw new TypeError(`${name} must be a non-negative number of milliseconds`);
	}

	return ms;
}

class LocalPlatformServer implements LocalPlatform {
	baseUrl = '';
	readonly appId: string;
	readonly userId: string;
	readonly companyId: string;
	readonly assistantId: string;
	readonly endpointSecret: string;

	private readonly server: Server;
	private readonly limits: LocalPlatformLimits;
	private readonly keys = new Map<string, KeyRecord>();
	private currentKey: string;
	private readonly keyOverlapMs: number;
	private failRate: number;
	private faultRetryAfterSeconds: number;
	private latencyMs: number;
	private random: () => number;
	private readonly assistantStepMs: number;
	private registeredWebhookUrl: string | undefined;
	private readonly dispatcher: WebhookDispatcher;
	private readonly agent = new Agent({connections: 8});
	private readonly contents: ContentStore;
	private readonly completionService: Completions;
	private readonly chats = new Map<string, ChatRecord>();
	private readonly messages = new Map<string, MessageRecord>();
	private readonly logs = new Map<string, LogRecord>();
	private readonly requestLog: RequestRecord[] = [];
	/** Every pending sleep listens on this signal (and removes itself when done), so the count is unbounded by design. */
	private readonly stop = unlimitedListeners(new AbortController());
	private readonly background = new Set<Promise<unknown>>();
	private readonly moduleIds = {builtIn: newId('mod'), external: newId('mod')};
	private readonly spaceCreatedAt = now();
	private closing: Promise<void> | undefined;

	constructor(
		private readonly options: LocalPlatformOptions,
		readonly blobs: BlobStore,
	) {
		this.limits = {...defaultLimits, ...options.limits};
		this.currentKey = options.apiKey ?? newApiKey();
		this.keys.set(this.currentKey, {createdAt: Date.now(), expiresAt: null});
		this.appId = options.appId ?? newId('app');
		this.userId = options.userId ?? newId('user');
		this.companyId = options.companyId ?? newId('company');
		this.assistantId = newId('assistant');
		this.endpointSecret = options.endpointSecret ?? randomBytes(32).toString('hex');
		this.keyOverlapMs = validateMs(options.keyOverlapMs, 24 * 60 * 60 * 1000, 'keyOverlapMs');
		this.failRate = validateRate(options.failRate, 'failRate');
		this.faultRetryAfterSeconds = Math.max(0, Math.round(options.faultRetryAfterSeconds ?? 1));
		this.latencyMs = validateMs(options.latencyMs, 0, 'latencyMs');
		this.random = options.seed === undefined ? Math.random : seededRandom(options.seed);
		const context: ServiceContext = {
			limits: this.limits,
			signal: this.stop.signal,
			baseUrl: () => this.baseUrl,
			emit: event => {
				this.emit(event);
			},
			track: promise => {
				this.track(promise);
			},
		};
		this.completionService = new Completions(context, {
			llmUrl: options.llmUrl === undefined ? undefined : assertLoopbackUrl(options.llmUrl, 'llmUrl'),
			llmModel: options.llmModel,
			llmApiKey: options.llmApiKey,
			userAgent,
		}, this.agent);
		this.contents = new ContentStore(context, blobs, validateMs(options.ingestionStepMs, 150, 'ingestionStepMs'), (chatId, caller) => this.chatFor(chatId, caller));
		this.assistantStepMs = validateMs(options.assistantStepMs, 100, 'assistantStepMs');
		if (options.webhookUrl !== undefined) {
			this.setWebhookUrl(options.webhookUrl);
		}

		this.dispatcher = new WebhookDispatcher({
			secret: this.endpointSecret,
			retryBaseMs: validateMs(options.deliveryRetryBaseMs, 1000, 'deliveryRetryBaseMs'),
			maxRetries: 5,
			attemptTimeoutMs: validateMs(options.deliveryTimeoutMs, 10_000, 'deliveryTimeoutMs'),
			maxRecords: this.limits.maxDeliveryLog,
			userAgent,
			onAttempt: (record, attempt) => {
				this.emit({
					type: 'delivery',
					at: attempt.at,
					eventId: record.eventId,
					event: record.event,
					url: record.url,
					attempt: attempt.attempt,
					status: attempt.status,
					...(attempt.error === undefined ? {} : {error: attempt.error}),
					state: record.state,
				});
			},
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
		});
		const address = this.server.address() as AddressInfo;
		const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address;
		this.baseUrl = `http://${hostPart}:${address.port}`;
	}

	// ---- public inspection API -------------------------------------------------------------

	get apiKey(): string {
		return this.currentKey;
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
		return [...this.requestLog];
	}

	get completions(): readonly CompletionRecord[] {
		return [...this.completionService.records];
	}

	settings(): LocalPlatformSettings {
		return {
			baseUrl: this.baseUrl,
			apiKey: this.currentKey,
			appId: this.appId,
			userId: this.userId,
			companyId: this.companyId,
			assistantId: this.assistantId,
			endpointSecret: this.endpointSecret,
		};
	}

	setWebhookUrl(url?: string): void {
		this.registeredWebhookUrl = url === undefined || url === '' ? undefined : assertLoopbackUrl(url, 'webhookUrl').href;
	}

	setFaults(faults: {failRate?: number; latencyMs?: number; seed?: number; faultRetryAfterSeconds?: number}): void {
		if (faults.failRate !== undefined) {
			this.failRate = validateRate(faults.failRate, 'failRate');
		}

		if (faults.latencyMs !== undefined) {
			this.latencyMs = validateMs(faults.latencyMs, 0, 'latencyMs');
		}

		if (faults.seed !== undefined) {
			this.random = seededRandom(faults.seed);
		}

		if (faults.faultRetryAfterSeconds !== undefined) {
			this.faultRetryAfterSeconds = Math.max(0, Math.round(faults.faultRetryAfterSeconds));
		}
	}

	content(id: string): Record<string, unknown> | undefined {
		return this.contents.get(id);
	}

	message(id: string): Record<string, unknown> | undefined {
		const record = this.messages.get(id);
		return record === undefined ? undefined : this.messageView(record);
	}

	messageLogs(messageId: string): Array<Record<string, unknown>> {
		const message = this.messages.get(messageId);
		return (message?.logIds ?? [])
			.map(id => this.logs.get(id))
			.filter((log): log is LogRecord => log !== undefined)
			.map(log => this.logView(log));
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
		const requestId = `req_${newToken(24)}`;
		const started = performance.now();
		const url = new URL(request.url ?? '/', 'http://local.invalid');
		const method = (request.method ?? 'GET').toUpperCase();
		const record: RequestRecord = {
			requestId,
			at: now(),
			method,
			path: url.pathname,
			query: Object.fromEntries(url.searchParams),
			headers: flattenHeaders(request),
			body: undefined,
			status: 0,
			durationMs: 0,
		};
		response.setHeader('request-id', requestId);
		const isHealth = url.pathname === '/health';
		if (!isHealth) {
			remember(this.requestLog, record, this.limits.maxRequestLog);
			response.once('close', () => {
				record.status = response.statusCode;
				record.durationMs = Math.round(performance.now() - started);
				this.emit({
					type: 'request',
					at: record.at,
					requestId,
					method,
					path: record.path,
					status: record.status,
					durationMs: record.durationMs,
					...(record.fault === undefined ? {} : {fault: record.fault}),
				});
			});
		}

		try {
			if (isHealth) {
				if (method !== 'GET' && method !== 'HEAD') {
					throw new HttpError(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed on /health`);
				}

				sendJson(response, 200, {status: 'ok'});
				return;
			}

			if (this.latencyMs > 0) {
				await abortableSleep(this.latencyMs, this.stop.signal);
			}

			if (url.pathname.startsWith('/blob/')) {
				await this.contents.handleBlob(method, url, request, response);
				return;
			}

			this.injectFault(record);
			const caller = this.authenticate(request, url.pathname);
			const body = await readJsonBody(request);
			// Large bodies are not kept in the request log, so that it stays small.
			record.body = body.bytes <= maxLoggedBodyBytes ? body.value : `[${body.bytes} bytes not kept]`;
			const result = await this.route(method, url, body.value, caller);
			sendJson(response, result.status, result.body);
		} catch (error) {
			const httpError = error instanceof HttpError
				? error
				: new HttpError(500, 'INTERNAL_SERVER_ERROR', `Local platform error: ${error instanceof Error ? error.message : String(error)}`);
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

	/**
	 * Answers a share of API calls with 429 or 503 (half each), both with Retry-After, before
	 * anything is authenticated or processed, so a retry is always safe.
	 */
	private injectFault(record: RequestRecord): void {
		if (this.failRate <= 0 || this.random() >= this.failRate) {
			return;
		}

		if (this.random() < 0.5) {
			record.fault = 429;
			throw new HttpError(429, 'TOO_MANY_REQUESTS', 'Rate limit exceeded (injected by the local platform)', {
				'retry-after': String(this.faultRetryAfterSeconds),
			});
		}

		record.fault = 503;
		throw new HttpError(503, 'SERVICE_UNAVAILABLE', 'Service temporarily unavailable (injected by the local platform)', {
			'retry-after': String(this.faultRetryAfterSeconds),
		});
	}

	/**
	 * Every API call needs a live bearer key, `x-app-id` naming this app, and the `x-user-id` and
	 * `x-company-id` it acts for. Key rotation only needs the key (spec 4.1); if it sends the
	 * other headers they are checked too.
	 */
	private authenticate(request: IncomingMessage, path: string): Caller {
		const authorization = headerValue(request, 'authorization');
		const match = authorization === undefined ? null : /^Bearer\s+(\S+)$/i.exec(authorization);
		if (match?.[1] === undefined) {
			throw new HttpError(401, 'UNAUTHORIZED', 'Missing or malformed Authorization header; expected "Bearer <API key>"');
		}

		const key = this.keys.get(match[1]);
		if (key === undefined) {
			throw new HttpError(401, 'UNAUTHORIZED', 'Invalid API key');
		}

		if (key.expiresAt !== null && key.expiresAt <= Date.now()) {
			throw new HttpError(401, 'UNAUTHORIZED', `API key expired at ${new Date(key.expiresAt).toISOString()} (it was rotated)`);
		}

		const rotation = path === '/v2/keys/rotate';
		const appId = headerValue(request, 'x-app-id');
		if (appId === undefined && !rotation) {
			throw badRequest('Missing x-app-id header');
		}

		if (appId !== undefined && appId !== this.appId) {
			throw new HttpError(401, 'UNAUTHORIZED', `The API key does not belong to app "${appId}"`);
		}

		const userId = headerValue(request, 'x-user-id');
		const companyId = headerValue(request, 'x-company-id');
		if (!rotation && (userId === undefined || companyId === undefined)) {
			throw badRequest(`Missing ${userId === undefined ? 'x-user-id' : 'x-company-id'} header`);
		}

		return {userId: userId ?? this.userId, companyId: companyId ?? this.companyId, apiKey: match[1]};
	}

	private async route(method: string, url: URL, body: unknown, caller: Caller): Promise<{status: number; body: unknown}> {
		const segments = url.pathname.split('/').filter(segment => segment !== '').map(segment => decodeURIComponent(segment));
		const [first, second, third, fourth] = segments;
		const allow = (expected: string): void => {
			if (method !== expected) {
				throw new HttpError(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed on ${url.pathname}`);
			}
		};

		const ok = (value: unknown): {status: number; body: unknown} => ({status: 200, body: value});
		const created = (value: unknown): {status: number; body: unknown} => ({status: 201, body: value});
		const path = segments.join('/');
		if (path === 'v2/keys/rotate') {
			allow('POST');
			return ok(this.rotateKey(caller));
		}

		if (first === 'space') {
			if (segments.length === 2 && second === 'chat') {
				allow('POST');
				return created(this.createChat(objectBody(body), caller));
			}

			if (segments.length === 2 && second === 'message') {
				allow('POST');
				return created(this.createSpaceMessage(objectBody(body), caller));
			}

			if (segments.length === 4 && second === 'chat' && fourth === 'messages' && third !== undefined) {
				allow('GET');
				return ok(this.chatMessages(third, caller, url.searchParams));
			}

			if (segments.length === 4 && third === 'messages' && fourth === 'latest' && second !== undefined) {
				allow('GET');
				return ok(this.latestMessage(second, caller));
			}

			if (segments.length === 2 && second !== undefined) {
				allow('GET');
				return ok(this.getSpace(second));
			}
		}

		if (path === 'content/upsert') {
			allow('POST');
			return ok(this.contents.upsertContent(objectBody(body), caller));
		}

		if (path === 'content/search') {
			allow('POST');
			return ok(this.contents.searchContent(objectBody(body), caller));
		}

		if (path === 'search/search') {
			allow('POST');
			return ok(this.contents.search(objectBody(body), caller));
		}

		if (path === 'openai/chat/completions') {
			allow('POST');
			return ok(await this.completionService.handle(objectBody(body)));
		}

		if (path === 'message-log') {
			allow('POST');
			return created(this.createMessageLog(objectBody(body), caller));
		}

		if (first === 'message-log' && segments.length === 2 && second !== undefined) {
			allow('PATCH');
			return ok(this.updateMessageLog(second, objectBody(body), caller));
		}

		if (first === 'messages' && segments.length === 2 && second !== undefined) {
			allow('PATCH');
			return ok(this.modifyMessage(second, objectBody(body), caller));
		}

		throw notFound(`No route for ${method} ${url.pathname}`);
	}

	// ---- keys --------------------------------------------------------------------------------

	/**
	 * Issues a new key. Every key that had no expiry (the newest one) now expires after the
	 * overlap; keys rotated out earlier keep their own expiry. The answer's old_key_expires_at is
	 * the expiry of the key the call was made with.
	 */
	private rotateKey(caller: Caller): {new_key: string; old_key_expires_at: string} {
		const nowMs = Date.now();
		const expiresAt = nowMs + this.keyOverlapMs;
		for (const record of this.keys.values()) {
			record.expiresAt ??= expiresAt;
		}

		const newKey = newApiKey();
		this.keys.set(newKey, {createdAt: nowMs, expiresAt: null});
		this.currentKey = newKey;
		while (this.keys.size > this.limits.maxKeys) {
			const entries = [...this.keys.entries()];
			const victim = entries.find(([, record]) => record.expiresAt !== null && record.expiresAt <= nowMs)
				?? entries.find(([key]) => key !== newKey);
			if (victim === undefined) {
				break;
			}

			this.keys.delete(victim[0]);
		}

		const used = this.keys.get(caller.apiKey)?.expiresAt ?? expiresAt;
		const oldKeyExpiresAt = new Date(used).toISOString();
		this.emit({type: 'key-rotated', at: new Date(nowMs).toISOString(), oldKeyExpiresAt});
		return {new_key: newKey, old_key_expires_at: oldKeyExpiresAt};
	}

	// ---- spaces, chats and messages ------------------------------------------------------------

	private getSpace(spaceId: string): Record<string, unknown> {
		if (spaceId !== this.assistantId) {
			throw notFound(`Space ${spaceId} not found`);
		}

		const modules: Array<Record<string, unknown>> = [{
			id: this.moduleIds.builtIn,
			name: 'DocumentSearch',
			description: 'Answers from the documents uploaded to the chat and the company knowledge base',
			isExternal: false,
			configuration: {},
		}];
		if (this.registeredWebhookUrl !== undefined) {
			modules.push(this.externalModule());
		}

		return {
			id: this.assistantId,
			name: 'Local Assistant',
			fallbackModule: 'DocumentSearch',
			languageModel: defaultModel,
			chatUpload: 'ENABLED',
			isExternal: false,
			modules,
			createdAt: this.spaceCreatedAt,
			updatedAt: this.spaceCreatedAt,
		};
	}

	private externalModule(): {id: string; name: string; description: string; isExternal: true; configuration: Record<string, unknown>} {
		return {
			id: this.moduleIds.external,
			name: 'ExternalModule',
			description: 'Answers through the application registered at the webhook URL',
			isExternal: true,
			configuration: {},
		};
	}

	private chatFor(chatId: string, caller: Caller): ChatRecord {
		const chat = this.chats.get(chatId);
		if (chat === undefined || chat.companyId !== caller.companyId) {
			throw notFound(`Chat ${chatId} not found`);
		}

		return chat;
	}

	private messageFor(messageId: string, caller: Caller): MessageRecord {
		const message = this.messages.get(messageId);
		if (message === undefined || message.companyId !== caller.companyId) {
			throw notFound(`Message ${messageId} not found`);
		}

		return message;
	}

	private createChat(body: JsonObject, caller: Caller): Record<string, unknown> {
		const assistantId = requiredString(body, 'assistantId');
		const title = optionalString(body, 'title') ?? 'New chat';
		if (assistantId !== this.assistantId) {
			throw notFound(`Assistant ${assistantId} not found`);
		}

		if (this.chats.size >= this.limits.maxChats) {
			throw quotaExceeded('chats', this.limits.maxChats);
		}

		const createdAt = now();
		const chat: ChatRecord = {
			id: newId('chat'),
			title,
			assistantId,
			companyId: caller.companyId,
			userId: caller.userId,
			createdAt,
			updatedAt: createdAt,
			messageIds: [],
		};
		this.chats.set(chat.id, chat);
		return {id: chat.id, title: chat.title, assistantId, createdAt, updatedAt: createdAt};
	}

	private messageView(message: MessageRecord): Record<string, unknown> {
		return {
			id: message.id,
			chatId: message.chatId,
			role: message.role,
			text: message.text,
			createdAt: message.createdAt,
			updatedAt: message.updatedAt,
			startedStreamingAt: message.startedStreamingAt,
			stoppedStreamingAt: message.stoppedStreamingAt,
			completedAt: message.completedAt,
		};
	}

	private addMessage(chat: ChatRecord, fields: Pick<MessageRecord, 'role' | 'text' | 'startedStreamingAt' | 'stoppedStreamingAt' | 'completedAt' | 'userId'>): MessageRecord {
		const createdAt = now();
		const message: MessageRecord = {
			id: newId('msg'),
			chatId: chat.id,
			createdAt,
			updatedAt: createdAt,
			companyId: chat.companyId,
			logIds: [],
			...fields,
		};
		this.messages.set(message.id, message);
		chat.messageIds.push(message.id);
		chat.updatedAt = createdAt;
		return message;
	}

	private createSpaceMessage(body: JsonObject, caller: Caller): Record<string, unknown> {
		const assistantId = requiredString(body, 'assistantId');
		const chatId = requiredString(body, 'chatId');
		const text = requiredString(body, 'text');
		for (const field of ['toolChoices', 'skillChoices']) {
			if (body[field] !== undefined && !Array.isArray(body[field])) {
				throw badRequest(`"${field}" must be an array`);
			}
		}

		const chat = this.chatFor(chatId, caller);
		if (assistantId !== chat.assistantId) {
			throw notFound(`Assistant ${assistantId} not found for chat ${chatId}`);
		}

		if (chat.messageIds.length + 2 > this.limits.maxMessagesPerChat) {
			throw quotaExceeded('messages per chat', this.limits.maxMessagesPerChat);
		}

		const userMessage = this.addMessage(chat, {
			role: 'USER',
			text,
			startedStreamingAt: null,
			stoppedStreamingAt: null,
			completedAt: now(),
			userId: caller.userId,
		});
		const assistantMessage = this.addMessage(chat, {
			role: 'ASSISTANT',
			text: null,
			startedStreamingAt: now(),
			stoppedStreamingAt: null,
			completedAt: null,
			userId: caller.userId,
		});
		this.track(this.answer(chat, userMessage, assistantMessage, caller));
		return this.messageView(userMessage);
	}

	private envelope<P>(event: string, caller: Caller, payload: P): WebhookEvent<P> {
		return {
			id: newId('evt'),
			version: webhookPayloadVersion,
			event,
			createdAt: String(Math.floor(Date.now() / 1000)),
			userId: caller.userId,
			companyId: caller.companyId,
			payload,
		};
	}

	/**
	 * After a space message: with a registered application, it gets `user-message.created` and
	 * then `external-module.chosen`, and the answer is whatever it writes. If the chosen event
	 * cannot be delivered (expired or out of retries), the assistant message is closed with a
	 * note saying so, so that waiting clients do not hang. Without an application, the built-in
	 * assistant answers.
	 */
	private async answer(chat: ChatRecord, userMessage: MessageRecord, assistantMessage: MessageRecord, caller: Caller): Promise<void> {
		const url = this.registeredWebhookUrl;
		if (url === undefined) {
			await this.builtInAnswer(chat, userMessage, assistantMessage);
			return;
		}

		const createdPayload: UserMessageCreatedPayload = {chatId: chat.id, assistantId: chat.assistantId, text: userMessage.text ?? ''};
		const created = this.dispatcher.send(url, this.envelope(eventTypes.userMessageCreated, caller, createdPayload));
		// Keep the events in order: the chosen event goes out once the first one has had an answer.
		await created.firstAttempt;
		if (this.stop.signal.aborted) {
			return;
		}

		const module = this.externalModule();
		const chosenPayload: ExternalModuleChosenPayload = {
			name: module.name,
			description: module.description,
			configuration: module.configuration,
			chatid: chat.id,
			assistantId: chat.assistantId,
			userMessage: {id: userMessage.id, text: userMessage.text ?? '', createdAt: userMessage.createdAt},
			assistantMessage: {id: assistantMessage.id, createdAt: assistantMessage.createdAt},
		};
		const chosen = this.dispatcher.send(url, this.envelope(eventTypes.externalModuleChosen, caller, chosenPayload));
		const record = await chosen.done;
		if ((record.state === 'expired' || record.state === 'failed') && assistantMessage.stoppedStreamingAt === null) {
			const last = record.attempts.at(-1);
			const reason = last?.status === null || last === undefined ? (last?.error ?? 'no answer') : `HTTP ${last.status}`;
			const stopped = now();
			assistantMessage.text = `(local platform) The external module did not take the event (${reason}); no answer was written.`;
			assistantMessage.updatedAt = stopped;
			assistantMessage.stoppedStreamingAt = stopped;
			assistantMessage.completedAt = stopped;
		}
	}

	private addLog(message: MessageRecord, text: string, status: LogStatus, order: number): LogRecord {
		if (message.logIds.length >= this.limits.maxLogsPerMessage) {
			throw quotaExceeded('message logs per message', this.limits.maxLogsPerMessage);
		}

		const createdAt = now();
		const log: LogRecord = {id: newId('msglog'), messageId: message.id, text, status, order, createdAt, updatedAt: createdAt, companyId: message.companyId};
		this.logs.set(log.id, log);
		message.logIds.push(log.id);
		return log;
	}

	private setLog(log: LogRecord, status: LogStatus, text?: string): void {
		log.status = status;
		log.text = text ?? log.text;
		log.updatedAt = now();
	}

	/** The built-in assistant: search the chat's content, ask the model, stream the answer in a few steps. */
	private async builtInAnswer(chat: ChatRecord, userMessage: MessageRecord, assistantMessage: MessageRecord): Promise<void> {
		const question = userMessage.text ?? '';
		const open: LogRecord[] = [];
		const write = (text: string, stop: boolean): void => {
			const at = now();
			assistantMessage.text = text;
			assistantMessage.updatedAt = at;
			if (stop) {
				assistantMessage.stoppedStreamingAt = at;
				assistantMessage.completedAt = at;
			}
		};

		try {
			const searchLog = this.addLog(assistantMessage, 'Searching the knowledge base', 'RUNNING', 1);
			open.push(searchLog);
			const hits = this.contents.searchChunks(question, {companyId: chat.companyId, chatId: chat.id, limit: 3, searchType: 'COMBINED'});
			const context = hits.length === 0
				? 'No relevant documents were found.'
				: hits.map(hit => hit.text.slice(0, 500)).join('\n---\n');
			this.setLog(searchLog, 'COMPLETED', `Found ${hits.length} relevant document${hits.length === 1 ? '' : 's'}`);
			open.pop();
			const generateLog = this.addLog(assistantMessage, 'Generating a response', 'RUNNING', 2);
			open.push(generateLog);
			const {content} = await this.completionService.complete({
				model: defaultModel,
				messages: [
					{role: 'system', content: `Answer the user's question using only the documents below.\n\nContext:\n${context}`},
					{role: 'user', content: question},
				],
				temperature: 0.3,
				ignoredFields: [],
				source: 'assistant',
			});
			const words = content.split(/(?<=\s)/);
			const steps = Math.min(3, words.length);
			for (let step = 1; step < steps; step++) {
				write(words.slice(0, Math.ceil((words.length * step) / steps)).join(''), false);
				// eslint-disable-next-line no-await-in-loop
				await abortableSleep(this.assistantStepMs, this.stop.signal);
			}

			this.setLog(generateLog, 'COMPLETED', 'Response generated');
			open.pop();
			write(content, true);
		} catch (error) {
			for (const log of open) {
				this.setLog(log, 'FAILED');
			}

			write(`(local platform) Sorry, something went wrong while answering (${error instanceof Error ? error.message : String(error)}). Please try again.`, true);
		}
	}

	private chatMessages(chatId: string, caller: Caller, query: URLSearchParams): {messages: Array<Record<string, unknown>>; totalCount: number} {
		const chat = this.chatFor(chatId, caller);
		const all = chat.messageIds
			.map(id => this.messages.get(id))
			.filter((message): message is MessageRecord => message !== undefined);
		const skip = Math.max(0, Number.parseInt(query.get('skip') ?? '0', 10) || 0);
		const takeText = query.get('take');
		const take = takeText === null ? all.length : Math.max(0, Number.parseInt(takeText, 10) || 0);
		return {messages: all.slice(skip, skip + take).map(message => this.messageView(message)), totalCount: all.length};
	}

	private latestMessage(chatId: string, caller: Caller): Record<string, unknown> {
		const chat = this.chatFor(chatId, caller);
		const id = chat.messageIds.at(-1);
		const message = id === undefined ? undefined : this.messages.get(id);
		if (message === undefined) {
			throw notFound(`Chat ${chatId} has no messages`);
		}

		return this.messageView(message);
	}

	private modifyMessage(messageId: string, body: JsonObject, caller: Caller): Record<string, unknown> {
		const message = this.messageFor(messageId, caller);
		const chatId = requiredString(body, 'chatId');
		if (chatId !== message.chatId) {
			throw badRequest(`Message ${messageId} does not belong to chat ${chatId}`);
		}

		const text = optionalString(body, 'text');
		const stoppedStreamingAt = optionalTimestamp(body, 'stoppedStreamingAt');
		const completedAt = optionalTimestamp(body, 'completedAt');
		if (text !== undefined) {
			message.text = text;
		}

		if (stoppedStreamingAt !== undefined) {
			message.stoppedStreamingAt = stoppedStreamingAt;
		}

		if (completedAt !== undefined) {
			message.completedAt = completedAt;
		}

		message.updatedAt = now();
		return this.messageView(message);
	}

	private logView(log: LogRecord): Record<string, unknown> {
		return {
			id: log.id,
			messageId: log.messageId,
			text: log.text,
			status: log.status,
			order: log.order,
			createdAt: log.createdAt,
			updatedAt: log.updatedAt,
		};
	}

	private logStatus(value: unknown): LogStatus {
		if (typeof value !== 'string' || !logStatuses.includes(value as LogStatus)) {
			throw badRequest(`"status" must be one of ${logStatuses.join(', ')}`);
		}

		return value as LogStatus;
	}

	private createMessageLog(body: JsonObject, caller: Caller): Record<string, unknown> {
		const messageId = requiredString(body, 'messageId');
		const text = optionalString(body, 'text');
		if (text === undefined) {
			throw badRequest('"text" is required and must be a string');
		}

		const status = this.logStatus(body.status);
		const {order} = body;
		if (typeof order !== 'number' || !Number.isInteger(order)) {
			throw badRequest('"order" is required and must be an integer');
		}

		const message = this.messageFor(messageId, caller);
		return this.logView(this.addLog(message, text, status, order));
	}

	private updateMessageLog(logId: string, body: JsonObject, caller: Caller): Record<string, unknown> {
		const log = this.logs.get(logId);
		if (log === undefined || log.companyId !== caller.companyId) {
			throw notFound(`Message log ${logId} not found`);
		}

		const text = optionalString(body, 'text');
		const status = body.status === undefined ? undefined : this.logStatus(body.status);
		this.setLog(log, status ?? log.status, text);
		return this.logView(log);
	}

}

export async function startLocalPlatform(options: LocalPlatformOptions = {}): Promise<LocalPlatform> {
	const host = options.host ?? '127.0.0.1';
	if (!isLoopbackHost(host)) {
		throw new TypeError(`host: the local platform only binds loopback addresses (127.0.0.1, ::1, localhost), got ${host}`);
	}

	const port = options.port ?? 0;
	if (!Number.isInteger(port) || port < 0 || port > 65_535) {
		throw new TypeError(`port must be an integer from 0 to 65535, got ${port}`);
	}

	const limits = {...defaultLimits, ...options.limits};
	const blobs = await BlobStore.create(limits.maxBlobBytes, limits.maxTotalBlobBytes);
	let platform: LocalPlatformServer;
	try {
		platform = new LocalPlatformServer(options, blobs);
	} catch (error) {
		await blobs.close();
		throw error;
	}

	try {
		await platform.listen(host, port);
	} catch (error) {
		await platform.close();
		throw error;
	}

	return platform;
}
