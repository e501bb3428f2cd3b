import {randomBytes} from 'node:crypto';
import {createReadStream} from 'node:fs';
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http';
import type {AddressInfo} from 'node:net';
import {performance} from 'node:perf_hooks';
import {pipeline} from 'node:stream/promises';
import mime from 'mime-types';
import {Agent, request as undiciRequest} from 'undici';
import {eventTypes, type ExternalModuleChosenPayload, type UserMessageCreatedPayload, type WebhookEvent} from '../platform/types.js';
import {webhookPayloadVersion} from '../platform/webhook-signature.js';
import {BlobStore} from './blobs.js';
import {chunkPages, extractFile, ParseError} from './extract.js';
import {
	HttpError,
	badRequest,
	isObject,
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
import {localCompletion, type ModelMessage} from './model.js';
import {ChunkIndex, searchTypes, type IndexedChunk, type LocalSearchType} from './search-index.js';
import {abortableSleep} from './timers.js';
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

type Caller = {userId: string; companyId: string; apiKey: string};

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

type ContentRecord = {
	id: string;
	key: string;
	title: string;
	mimeType: string;
	chatId: string | undefined;
	companyId: string;
	ownerId: string;
	byteSize: number | null;
	ingestionState: string;
	ingestionError: string | undefined;
	ingestionConfig: unknown;
	writeToken: string;
	readToken: string;
	blobContentType: string | undefined;
	uploadedAt: string | undefined;
	finalizedAt: string | undefined;
	createdAt: string;
	updatedAt: string;
	/** Bumped by every completed upload; a running ingestion stops when it is no longer current. */
	generation: number;
	chunkCount: number;
};

const logStatuses: readonly LogStatus[] = ['RUNNING', 'COMPLETED', 'FAILED'];

function now(): string {
	return new Date().toISOString();
}

function quotaExceeded(what: string, limit: number): HttpError {
	return new HttpError(403, 'QUOTA_EXCEEDED', `The local platform keeps at most ${limit} ${what}`);
}

function headerValue(request: IncomingMessage, name: string): string | undefined {
	const value = request.headers[name];
	const text = Array.isArray(value) ? value[0] : value;
	return text === undefined || text.trim() === '' ? undefined : text.trim();
}

function flattenHeaders(request: IncomingMessage): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [name, value] of Object.entries(request.headers)) {
		if (value !== undefined) {
			out[name] = Array.isArray(value) ? value.join(', ') : value;
		}
	}

	return out;
}

function estimateTokens(text: string): number {
	return Math.ceil(text.length / 4);
}

function normalizeMime(mimeType: string, key: string): string {
	const base = (mimeType.split(';')[0] ?? '').trim().toLowerCase();
	if (base !== '') {
		return base;
	}

	return mime.lookup(key) || 'application/octet-stream';
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
	private readonly llmUrl: URL | undefined;
	private readonly ingestionStepMs: number;
	private readonly assistantStepMs: number;
	private registeredWebhookUrl: string | undefined;
	private readonly dispatcher: WebhookDispatcher;
	private readonly agent = new Agent({connections: 8});
	private readonly index = new ChunkIndex();
	private readonly chats = new Map<string, ChatRecord>();
	private readonly messages = new Map<string, MessageRecord>();
	private readonly logs = new Map<string, LogRecord>();
	private readonly contents = new Map<string, ContentRecord>();
	private readonly contentKeys = new Map<string, string>();
	private readonly requestLog: RequestRecord[] = [];
	private readonly completionLog: CompletionRecord[] = [];
	private readonly stop = new AbortController();
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
		this.llmUrl = options.llmUrl === undefined ? undefined : assertLoopbackUrl(options.llmUrl, 'llmUrl');
		this.ingestionStepMs = validateMs(options.ingestionStepMs, 150, 'ingestionStepMs');
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
		return [...this.completionLog];
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
		const record = this.contents.get(id);
		return record === undefined ? undefined : this.contentView(record);
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

	private remember<T>(list: T[], entry: T, max: number): void {
		list.push(entry);
		if (list.length > max) {
			list.splice(0, list.length - max);
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
			this.remember(this.requestLog, record, this.limits.maxRequestLog);
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
				await this.handleBlob(method, url, request, response);
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
			return ok(this.upsertContent(objectBody(body), caller));
		}

		if (path === 'content/search') {
			allow('POST');
			return ok(this.searchContent(objectBody(body), caller));
		}

		if (path === 'search/search') {
			allow('POST');
			return ok(this.search(objectBody(body), caller));
		}

		if (path === 'openai/chat/completions') {
			allow('POST');
			return ok(await this.chatCompletion(objectBody(body)));
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
			const hits = this.index.search(question, {companyId: chat.companyId, chatId: chat.id, limit: 3, searchType: 'COMBINED'});
			const context = hits.length === 0
				? 'No relevant documents were found.'
				: hits.map(hit => hit.text.slice(0, 500)).join('\n---\n');
			this.setLog(searchLog, 'COMPLETED', `Found ${hits.length} relevant document${hits.length === 1 ? '' : 's'}`);
			open.pop();
			const generateLog = this.addLog(assistantMessage, 'Generating a response', 'RUNNING', 2);
			open.push(generateLog);
			const {content} = await this.complete({
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

	// ---- contents and ingestion ----------------------------------------------------------------

	private blobUrl(content: ContentRecord, permission: 'r' | 'w'): string {
		const token = permission === 'w' ? content.writeToken : content.readToken;
		return `${this.baseUrl}/blob/${encodeURIComponent(content.id)}?sp=${permission}&token=${token}`;
	}

	private contentView(content: ContentRecord): Record<string, unknown> {
		return {
			id: content.id,
			key: content.key,
			title: content.title,
			mimeType: content.mimeType,
			byteSize: content.byteSize,
			chatId: content.chatId ?? null,
			ownerId: content.ownerId,
			ingestionState: content.ingestionState,
			...(content.ingestionError === undefined ? {} : {ingestionError: content.ingestionError}),
			chunkCount: content.chunkCount,
			writeUrl: this.blobUrl(content, 'w'),
			readUrl: this.blobUrl(content, 'r'),
			url: null,
			createdAt: content.createdAt,
			updatedAt: content.updatedAt,
		};
	}

	private contentKey(companyId: string, chatId: string | undefined, key: string): string {
		return `${companyId}\u0000${chatId ?? ''}\u0000${key}`;
	}

	/**
	 * Creates or updates the content with this key in this scope (the chat, or company-wide
	 * without chatId). An upsert with `fileUrl` is the finalize step: it must name this content's
	 * own blob, is accepted any number of times, and does not restart ingestion, which starts as
	 * soon as the bytes have arrived by PUT.
	 */
	private upsertContent(body: JsonObject, caller: Caller): Record<string, unknown> {
		if (!isObject(body.input)) {
			throw badRequest('"input" is required and must be an object');
		}

		const {input} = body;
		const key = requiredString(input, 'key', 'input.key');
		const title = optionalString(input, 'title', 'input.title') ?? key;
		const mimeType = normalizeMime(optionalString(input, 'mimeType', 'input.mimeType') ?? '', key);
		const {byteSize} = input;
		if (byteSize !== undefined && byteSize !== null && (typeof byteSize !== 'number' || !Number.isSafeInteger(byteSize) || byteSize < 0)) {
			throw badRequest('"input.byteSize" must be a non-negative integer');
		}

		const chatId = optionalString(body, 'chatId');
		const fileUrl = optionalString(body, 'fileUrl');
		if (chatId !== undefined) {
			this.chatFor(chatId, caller);
		}

		const scopeKey = this.contentKey(caller.companyId, chatId, key);
		const existingId = this.contentKeys.get(scopeKey);
		let content = existingId === undefined ? undefined : this.contents.get(existingId);
		const at = now();
		if (content === undefined) {
			if (this.contents.size >= this.limits.maxContents) {
				throw quotaExceeded('contents', this.limits.maxContents);
			}

			content = {
				id: newId('cont'),
				key,
				title,
				mimeType,
				chatId,
				companyId: caller.companyId,
				ownerId: chatId ?? caller.companyId,
				byteSize: null,
				ingestionState: 'QUEUED',
				ingestionError: undefined,
				ingestionConfig: body.ingestionConfig,
				writeToken: newToken(),
				readToken: newToken(),
				blobContentType: undefined,
				uploadedAt: undefined,
				finalizedAt: undefined,
				createdAt: at,
				updatedAt: at,
				generation: 0,
				chunkCount: 0,
			};
		}

		if (fileUrl !== undefined) {
			let path: string;
			try {
				path = new URL(fileUrl).pathname;
			} catch {
				throw badRequest('"fileUrl" must be a URL');
			}

			if (path !== `/blob/${encodeURIComponent(content.id)}`) {
				throw badRequest('"fileUrl" must be the readUrl of this content (the local platform does not fetch other addresses)');
			}

			if (typeof byteSize === 'number' && content.uploadedAt !== undefined && content.byteSize !== byteSize) {
				throw badRequest(`"input.byteSize" is ${byteSize} but ${content.byteSize ?? 0} bytes were uploaded`);
			}

			content.finalizedAt ??= at;
		}

		content.title = title;
		content.mimeType = mimeType;
		if (body.ingestionConfig !== undefined) {
			content.ingestionConfig = body.ingestionConfig;
		}

		content.updatedAt = at;
		this.contents.set(content.id, content);
		this.contentKeys.set(scopeKey, content.id);
		return this.contentView(content);
	}

	private setIngestionState(content: ContentRecord, state: string, error?: string): void {
		content.ingestionState = state;
		content.ingestionError = error;
		content.updatedAt = now();
		this.emit({type: 'ingestion', at: content.updatedAt, contentId: content.id, key: content.key, state, ...(error === undefined ? {} : {error})});
	}

	private startIngestion(content: ContentRecord): void {
		const generation = ++content.generation;
		this.index.removeContent(content.id);
		content.chunkCount = 0;
		this.setIngestionState(content, 'QUEUED');
		this.track(this.ingest(content, generation));
	}

	/**
	 * QUEUED → INGESTION_READING (text extraction) → INGESTION_CHUNKING → INGESTION_EMBEDDING →
	 * FINISHED (chunks become searchable), each state held for `ingestionStepMs`. Unparsable
	 * bytes end in FAILED_PARSING. A newer upload of the same content supersedes this run.
	 */
	private async ingest(content: ContentRecord, generation: number): Promise<void> {
		const current = (): boolean => !this.stop.signal.aborted && content.generation === generation;
		const step = async (): Promise<boolean> => {
			await abortableSleep(this.ingestionStepMs, this.stop.signal);
			return current();
		};

		if (!await step()) {
			return;
		}

		this.setIngestionState(content, 'INGESTION_READING');
		let pages;
		try {
			const extraction = await extractFile(this.blobs.pathOf(content.id), content.mimeType, content.byteSize ?? 0, this.limits);
			pages = extraction.pages;
		} catch (error) {
			if (await step()) {
				const message = error instanceof Error ? error.message : String(error);
				this.setIngestionState(content, error instanceof ParseError ? 'FAILED_PARSING' : 'FAILED_READING', message);
			}

			return;
		}

		if (!await step()) {
			return;
		}

		this.setIngestionState(content, 'INGESTION_CHUNKING');
		// Per content and in total, the index is capped; chunks beyond the cap are not searchable.
		const room = Math.max(0, this.limits.maxIndexedChunks - (this.index.size - content.chunkCount));
		const chunks = chunkPages(pages).slice(0, Math.min(this.limits.maxChunksPerContent, room));
		if (!await step()) {
			return;
		}

		this.setIngestionState(content, 'INGESTION_EMBEDDING');
		if (!await step()) {
			return;
		}

		const indexed: IndexedChunk[] = chunks.map(chunk => ({
			chunkId: newId('chunk'),
			contentId: content.id,
			companyId: content.companyId,
			chatId: content.chatId,
			key: content.key,
			title: content.title,
			url: this.blobUrl(content, 'r'),
			order: chunk.order,
			startPage: chunk.startPage,
			endPage: chunk.endPage,
			text: chunk.text,
		}));
		this.index.replaceContent(content.id, indexed);
		content.chunkCount = indexed.length;
		this.setIngestionState(content, 'FINISHED');
	}

	private searchContent(body: JsonObject, caller: Caller): Array<Record<string, unknown>> {
		const where = body.where ?? {};
		if (!isObject(where)) {
			throw badRequest('"where" must be an object');
		}

		const filters: Array<(content: ContentRecord) => boolean> = [];
		for (const [field, condition] of Object.entries(where)) {
			if (field !== 'id' && field !== 'key') {
				throw badRequest(`where.${field} is not supported by the local platform (use id or key)`);
			}

			if (!isObject(condition)) {
				throw badRequest(`where.${field} must be an object such as {equals: "..."}`);
			}

			for (const [operator, value] of Object.entries(condition)) {
				if (operator === 'equals' && typeof value === 'string') {
					filters.push(content => content[field] === value);
				} else if (operator === 'in' && Array.isArray(value) && value.every(item => typeof item === 'string')) {
					const set = new Set(value as string[]);
					filters.push(content => set.has(content[field]));
				} else {
					throw badRequest(`where.${field}.${operator} is not supported (use equals: string or in: string[])`);
				}
			}
		}

		const chatId = optionalString(body, 'chatId');
		const includeFailed = body.includeFailedContent === true;
		const out: Array<Record<string, unknown>> = [];
		for (const content of this.contents.values()) {
			if (content.companyId !== caller.companyId) {
				continue;
			}

			if (chatId !== undefined && content.chatId !== undefined && content.chatId !== chatId) {
				continue;
			}

			if (chatId === undefined && content.chatId !== undefined && filters.length === 0) {
				// Without a chat and without an id filter, list company-wide content only.
				continue;
			}

			if (!includeFailed && content.ingestionState.startsWith('FAILED')) {
				continue;
			}

			if (filters.every(filter => filter(content))) {
				out.push(this.contentView(content));
			}
		}

		return out;
	}

	private search(body: JsonObject, caller: Caller): Array<Record<string, unknown>> {
		const searchString = requiredString(body, 'searchString');
		const searchType = body.searchType ?? 'COMBINED';
		if (typeof searchType !== 'string' || !searchTypes.includes(searchType as LocalSearchType)) {
			throw badRequest(`"searchType" must be one of ${searchTypes.join(', ')}`);
		}

		const limit = body.limit ?? 10;
		if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 1000) {
			throw badRequest('"limit" must be an integer from 1 to 1000');
		}

		const chatId = optionalString(body, 'chatId');
		if (chatId !== undefined) {
			this.chatFor(chatId, caller);
		}

		return this.index
			.search(searchString, {companyId: caller.companyId, ...(chatId === undefined ? {} : {chatId}), limit, searchType: searchType as LocalSearchType})
			.map(hit => ({
				id: hit.contentId,
				chunkId: hit.chunkId,
				text: hit.text,
				key: hit.key,
				title: hit.title,
				url: hit.url,
				order: hit.order,
				startPage: hit.startPage,
				endPage: hit.endPage,
				score: hit.score,
			}));
	}

	// ---- blobs ---------------------------------------------------------------------------------

	private async handleBlob(method: string, url: URL, request: IncomingMessage, response: ServerResponse): Promise<void> {
		const contentId = decodeURIComponent(url.pathname.slice('/blob/'.length));
		const content = this.contents.get(contentId);
		const token = url.searchParams.get('token');
		if (method === 'PUT') {
			if (content === undefined || token !== content.writeToken) {
				throw new HttpError(403, 'AUTHENTICATION_FAILED', 'The pre-signed write address is not valid');
			}

			const blobType = headerValue(request, 'x-ms-blob-type');
			if (blobType?.toLowerCase() !== 'blockblob') {
				throw badRequest('The x-ms-blob-type: BlockBlob header is required');
			}

			const size = await this.blobs.receive(content.id, request);
			content.byteSize = size;
			content.blobContentType = headerValue(request, 'content-type');
			content.uploadedAt = now();
			this.startIngestion(content);
			response.writeHead(201, {'content-length': '0', 'x-ms-request-id': String(response.getHeader('request-id'))});
			response.end();
			return;
		}

		if (method === 'GET' || method === 'HEAD') {
			if (content === undefined || token !== content.readToken) {
				throw new HttpError(403, 'AUTHENTICATION_FAILED', 'The pre-signed read address is not valid');
			}

			if (!this.blobs.has(content.id)) {
				throw new HttpError(404, 'BLOB_NOT_FOUND', 'No bytes have been uploaded for this content');
			}

			response.writeHead(200, {
				'content-type': content.blobContentType ?? content.mimeType,
				'content-length': String(content.byteSize ?? 0),
				'x-ms-blob-type': 'BlockBlob',
			});
			if (method === 'HEAD') {
				response.end();
				return;
			}

			await pipeline(createReadStream(this.blobs.pathOf(content.id)), response);
			return;
		}

		throw new HttpError(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed on blob addresses`);
	}

	// ---- chat completion -------------------------------------------------------------------------

	private async chatCompletion(body: JsonObject): Promise<Record<string, unknown>> {
		const model = requiredString(body, 'model');
		if (!Array.isArray(body.messages) || body.messages.length === 0) {
			throw badRequest('"messages" is required and must be a non-empty array');
		}

		const messages: ModelMessage[] = body.messages.map((message: unknown, index: number) => {
			if (!isObject(message) || typeof message.role !== 'string' || typeof message.content !== 'string') {
				throw badRequest(`messages[${index}] must be {role: string, content: string}`);
			}

			if (!['system', 'user', 'assistant'].includes(message.role)) {
				throw badRequest(`messages[${index}].role must be system, user or assistant`);
			}

			return {role: message.role, content: message.content};
		});
		const options = body.options ?? {};
		if (!isObject(options)) {
			throw badRequest('"options" must be an object');
		}

		const {temperature} = options;
		if (temperature !== undefined && (typeof temperature !== 'number' || temperature < 0 || temperature > 2)) {
			throw badRequest('"options.temperature" must be a number from 0 to 2');
		}

		// Like the real gateway, top-level model parameters are dropped silently.
		const known = new Set(['model', 'messages', 'options', 'chatId', 'assistantId']);
		const ignoredFields = Object.keys(body).filter(field => !known.has(field));
		const result = await this.complete({model, messages, temperature: temperature ?? null, ignoredFields, source: 'api'});
		const prompt = messages.reduce((sum, message) => sum + estimateTokens(message.content), 0);
		const completion = estimateTokens(result.content);
		return {
			id: `chatcmpl-${newToken(24)}`,
			object: 'chat.completion',
			created: Math.floor(Date.now() / 1000),
			model,
			choices: [{index: 0, message: {role: 'assistant', content: result.content}, finish_reason: 'stop'}],
			usage: {prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion},
			localPlatform: {via: result.via, temperature: temperature ?? null, ignoredFields},
		};
	}

	private async complete(call: {
		model: string;
		messages: ModelMessage[];
		temperature: number | null;
		ignoredFields: string[];
		source: CompletionRecord['source'];
	}): Promise<{content: string; via: CompletionRecord['via']}> {
		let content: string;
		let via: CompletionRecord['via'];
		if (this.llmUrl === undefined) {
			content = localCompletion(call.messages);
			via = 'local-model';
		} else {
			content = await this.proxyCompletion(call.model, call.messages, call.temperature);
			via = 'llm-url';
		}

		this.remember(this.completionLog, {
			at: now(),
			model: call.model,
			temperature: call.temperature,
			ignoredFields: call.ignoredFields,
			messages: call.messages,
			via,
			answer: content,
			source: call.source,
		}, this.limits.maxCompletionLog);
		return {content, via};
	}

	private async proxyCompletion(model: string, messages: ModelMessage[], temperature: number | null): Promise<string> {
		const base = this.llmUrl!;
		const target = base.pathname.endsWith('/chat/completions')
			? base
			: new URL(`${base.pathname.replace(/\/$/, '')}/chat/completions`, base);
		let answer: unknown;
		try {
			const response = await undiciRequest(target, {
				method: 'POST',
				dispatcher: this.agent,
				signal: AbortSignal.any([this.stop.signal, AbortSignal.timeout(120_000)]),
				headers: {
					'content-type': 'application/json',
					'user-agent': userAgent,
					...(this.options.llmApiKey === undefined ? {} : {authorization: `Bearer ${this.options.llmApiKey}`}),
				},
				body: JSON.stringify({
					model: this.options.llmModel ?? model,
					messages,
					stream: false,
					...(temperature === null ? {} : {temperature}),
				}),
			});
			const text = await response.body.text();
			if (response.statusCode < 200 || response.statusCode >= 300) {
				throw new Error(`HTTP ${response.statusCode}: ${text.slice(0, 300)}`);
			}

			answer = JSON.parse(text) as unknown;
		} catch (error) {
			throw new HttpError(502, 'BAD_GATEWAY', `The model at --llm-url failed: ${error instanceof Error ? error.message : String(error)}`);
		}

		const choice = isObject(answer) && Array.isArray(answer.choices) ? (answer.choices[0] as unknown) : undefined;
		const message = isObject(choice) ? choice.message : undefined;
		if (!isObject(message) || typeof message.content !== 'string') {
			throw new HttpError(502, 'BAD_GATEWAY', 'The model at --llm-url answered without choices[0].message.content');
		}

		return message.content;
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
