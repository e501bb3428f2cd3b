import {createReadStream} from 'node:fs';
import {stat} from 'node:fs/promises';
import {Readable} from 'node:stream';
import {setTimeout as sleep} from 'node:timers/promises';
import {Agent, request, type Dispatcher} from 'undici';
import {userAgent as defaultUserAgent} from '../version.js';
import {
	PlatformApiError,
	PlatformConnectionError,
	PlatformError,
	PlatformResponseError,
	PlatformTimeoutError,
	errorCode,
	platformMessageFrom,
} from './errors.js';
import {
	apiVersion,
	type Chat,
	type ChatCompletion,
	type ChatCompletionRequest,
	type ChatMessages,
	type Content,
	type ContentSearch,
	type ContentUpsert,
	type KeyRotation,
	type Message,
	type MessageLog,
	type MessageLogCreate,
	type MessageLogUpdate,
	type MessageModify,
	type SearchRequest,
	type SearchResult,
	type Space,
	type SpaceMessageCreate,
} from './types.js';

/** Returns the API key to use; read on every request so a key rotated on disk is picked up. */
export type KeySupplier = () => string;

export type RequestLogEntry = {
	method: string;
	/** Path (API) or host and path (blob); never the query of a pre-signed address. */
	path: string;
	attempt: number;
	status?: number;
	requestId?: string;
	durationMs: number;
	error?: string;
	/** The key used, masked. */
	key?: string;
	retryInMs?: number;
};

export type PlatformClientOptions = {
	baseUrl: string;
	apiKey: string | KeySupplier;
	appId: string;
	/** Defaults for calls that do not name a user/company (the receiver passes the event's ids). */
	userId?: string;
	companyId?: string;
	/** Retries after the first attempt for transient failures. Default 3. */
	retries?: number;
	/** Base of the exponential backoff, ms. Default 500 (0.5 s × 2ⁿ, capped at 8 s). */
	retryBaseMs?: number;
	/** Cap of one backoff wait, ms. Default 8000. */
	retryCapMs?: number;
	/** Longest `Retry-After` honoured, seconds. Default 60. */
	maxRetryAfterSeconds?: number;
	/** Per-request timeout, ms. Default 60 000. */
	timeoutMs?: number;
	/** Connect timeout, ms. Default 10 000. */
	connectTimeoutMs?: number;
	userAgent?: string;
	dispatcher?: Dispatcher;
	onRequest?: (entry: RequestLogEntry) => void;
};

export type CallOptions = {
	userId?: string;
	companyId?: string;
	signal?: AbortSignal;
	timeoutMs?: number;
};

export type BlobUpload = {
	filePath: string;
	contentType: string;
	/** Size in bytes; read from the file when absent. */
	size?: number;
	onProgress?: (sentBytes: number, totalBytes: number) => void;
	signal?: AbortSignal;
	timeoutMs?: number;
};

/**
 * Which failures may be retried for an operation.
 * - `idempotent`: 408/409/429/5xx, timeouts and any connection failure.
 * - `unprocessed-only`: only where the server provably did not process the call: 429, 503 with
 *   Retry-After, connection refused.
 */
type RetryPolicy = 'idempotent' | 'unprocessed-only';

type Operation = {
	method: 'GET' | 'POST' | 'PATCH' | 'PUT';
	path: string;
	body?: unknown;
	call?: CallOptions;
	retryPolicy?: RetryPolicy;
};

const isRetryableStatus = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;
const refusedCodes = new Set(['ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT', 'ENOTFOUND', 'EAI_AGAIN']);
const resetCodes = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ETIMEDOUT']);

/** Masks a secret as `…last4`. */
export function maskSecret(secret: string | undefined): string {
	if (!secret) {
		return '(not set)';
	}

	return `…${secret.slice(-4)}`;
}

export class PlatformClient {
	readonly baseUrl: string;
	private readonly options: PlatformClientOptions;
	private readonly keySupplier: KeySupplier;
	private readonly dispatcher: Dispatcher;
	private readonly ownsDispatcher: boolean;

	constructor(options: PlatformClientOptions) {
		this.options = options;
		this.baseUrl = options.baseUrl.replace(/\/+$/, '');
		const {apiKey} = options;
		this.keySupplier = typeof apiKey === 'function' ? apiKey : () => apiKey;
		this.ownsDispatcher = !options.dispatcher;
		this.dispatcher = options.dispatcher ?? new Agent({
			keepAliveTimeout: 10_000,
			connect: {timeout: options.connectTimeoutMs ?? 10_000},
		});
	}

	/** Closes the keep-alive connections this client opened. */
	async close(): Promise<void> {
		if (this.ownsDispatcher) {
			await this.dispatcher.close();
		}
	}

	rotateKey(call?: CallOptions): Promise<KeyRotation> {
		return this.send<KeyRotation>({method: 'POST', path: '/v2/keys/rotate', body: {}, call, retryPolicy: 'unprocessed-only'});
	}

	createChat(body: {title: string; assistantId: string}, call?: CallOptions): Promise<Chat> {
		return this.send<Chat>({method: 'POST', path: '/space/chat', body, call});
	}

	getSpace(spaceId: string, call?: CallOptions): Promise<Space> {
		return this.send<Space>({method: 'GET', path: `/space/${encodeURIComponent(spaceId)}`, call});
	}

	createSpaceMessage(body: SpaceMessageCreate, call?: CallOptions): Promise<Message> {
		return this.send<Message>({
			method: 'POST',
			path: '/space/message',
			body: {toolChoices: [], skillChoices: [], ...body},
			call,
			retryPolicy: 'unprocessed-only',
		});
	}

	getLatestMessage(chatId: string, call?: CallOptions): Promise<Message> {
		return this.send<Message>({method: 'GET', path: `/space/${encodeURIComponent(chatId)}/messages/latest`, call});
	}

	getChatMessages(chatId: string, call?: CallOptions): Promise<ChatMessages> {
		return this.send<ChatMessages>({method: 'GET', path: `/space/chat/${encodeURIComponent(chatId)}/messages`, call});
	}

	upsertContent(body: ContentUpsert, call?: CallOptions): Promise<Content> {
		return this.send<Content>({method: 'POST', path: '/content/upsert', body, call});
	}

	searchContent(body: ContentSearch, call?: CallOptions): Promise<Content[]> {
		return this.send<Content[]>({method: 'POST', path: '/content/search', body, call});
	}

	search(body: SearchRequest, call?: CallOptions): Promise<SearchResult[] | null> {
		return this.send<SearchResult[] | null>({method: 'POST', path: '/search/search', body, call});
	}

	chatCompletion(body: ChatCompletionRequest, call?: CallOptions): Promise<ChatCompletion> {
		return this.send<ChatCompletion>({method: 'POST', path: '/openai/chat/completions', body, call});
	}

	createMessageLog(body: MessageLogCreate, call?: CallOptions): Promise<MessageLog> {
		return this.send<MessageLog>({method: 'POST', path: '/message-log', body, call});
	}

	updateMessageLog(messageLogId: string, body: MessageLogUpdate, call?: CallOptions): Promise<MessageLog> {
		return this.send<MessageLog>({method: 'PATCH', path: `/message-log/${encodeURIComponent(messageLogId)}`, body, call});
	}

	modifyMessage(messageId: string, body: MessageModify, call?: CallOptions): Promise<Message> {
		return this.send<Message>({method: 'PATCH', path: `/messages/${encodeURIComponent(messageId)}`, body, call});
	}

	/**
	 * Streams a file to a pre-signed blob address with PUT. No platform credentials are sent.
	 * A retry re-opens the file. Time allowed grows with the size (at least 1 MiB/s assumed).
	 */
	async putBlob(writeUrl: string, upload: BlobUpload): Promise<void> {
		const size = upload.size ?? (await stat(upload.filePath)).size;
		const url = new URL(writeUrl);
		const shownPath = `${url.host}${url.pathname}`;
		const timeoutMs = upload.timeoutMs ?? (this.options.timeoutMs ?? 60_000) + Math.ceil(size / 1024 / 1024) * 1000;
		const call: CallOptions = {timeoutMs};
		if (upload.signal) {
			call.signal = upload.signal;
		}

		await this.withRetries({method: 'PUT', path: shownPath, call, retryPolicy: 'idempotent'}, async (signal, attempt) => {
			let sent = 0;
			const {filePath, onProgress} = upload;
			upload.onProgress?.(0, size);
			async function * body() {
				for await (const chunk of createReadStream(filePath, {highWaterMark: 256 * 1024})) {
					sent += (chunk as Buffer).length;
					yield chunk as Buffer;
					onProgress?.(sent, size);
				}
			}

			const started = performance.now();
			const response = await request(url, {
				method: 'PUT',
				dispatcher: this.dispatcher,
				signal,
				headers: {
					'content-type': upload.contentType,
					'content-length': String(size),
					'x-ms-blob-type': 'BlockBlob',
					'user-agent': this.options.userAgent ?? defaultUserAgent,
				},
				body: Readable.from(body()),
			});
			const text = await response.body.text();
			const requestId = headerValue(response.headers, 'request-id') ?? headerValue(response.headers, 'x-ms-request-id');
			this.log({method: 'PUT', path: shownPath, attempt, status: response.statusCode, requestId, durationMs: performance.now() - started});
			if (response.statusCode < 200 || response.statusCode >= 300) {
				throw new PlatformApiError({
					status: response.statusCode,
					platformMessage: platformMessageFrom(safeJson(text), text.trim().slice(0, 200) || `HTTP ${response.statusCode}`),
					requestId,
					method: 'PUT',
					path: shownPath,
					retryAfterSeconds: parseRetryAfter(headerValue(response.headers, 'retry-after')),
				});
			}
		});
	}

	private async send<T>(operation: Operation): Promise<T> {
		return this.withRetries(operation, async (signal, attempt) => {
			const key = this.keySupplier();
			const call = operation.call ?? {};
			const userId = call.userId ?? this.options.userId;
			const companyId = call.companyId ?? this.options.companyId;
			const headers: Record<string, string> = {
				authorization: `Bearer ${key}`,
				'x-app-id': this.options.appId,
				'x-api-version': apiVersion,
				'user-agent': this.options.userAgent ?? defaultUserAgent,
				accept: 'application/json',
			};
			if (userId) {
				headers['x-user-id'] = userId;
			}

			if (companyId) {
				headers['x-company-id'] = companyId;
			}

			let body: string | undefined;
			if (operation.body !== undefined && operation.method !== 'GET') {
				body = JSON.stringify(operation.body);
				headers['content-type'] = 'application/json';
			}

			const started = performance.now();
			const response = await request(`${this.baseUrl}${operation.path}`, {
				method: operation.method,
				dispatcher: this.dispatcher,
				signal,
				headers,
				body,
			});
			const text = await response.body.text();
			const requestId = headerValue(response.headers, 'request-id');
			this.log({
				method: operation.method,
				path: operation.path,
				attempt,
				status: response.statusCode,
				requestId,
				durationMs: performance.now() - started,
				key: maskSecret(key),
			});
			const parsed = safeJson(text);
			if (response.statusCode < 200 || response.statusCode >= 300) {
				throw new PlatformApiError({
					status: response.statusCode,
					platformMessage: redact(platformMessageFrom(parsed, text.trim().slice(0, 200) || `HTTP ${response.statusCode}`), key),
					requestId,
					method: operation.method,
					path: operation.path,
					retryAfterSeconds: parseRetryAfter(headerValue(response.headers, 'retry-after')),
				});
			}

			if (parsed === invalidJson) {
				throw new PlatformResponseError({method: operation.method, path: operation.path, detail: 'the body is not JSON', requestId});
			}

			return parsed as T;
		});
	}

	/** Runs one attempt after another until success, a final failure, or the retries are spent. */
	private async withRetries<T>(
		operation: Pick<Operation, 'method' | 'path' | 'call' | 'retryPolicy'>,
		attemptOnce: (signal: AbortSignal, attempt: number) => Promise<T>,
	): Promise<T> {
		const retries = this.options.retries ?? 3;
		const call = operation.call ?? {};
		const timeoutMs = call.timeoutMs ?? this.options.timeoutMs ?? 60_000;
		const policy = operation.retryPolicy ?? 'idempotent';
		for (let attempt = 1; ; attempt++) {
			call.signal?.throwIfAborted();
			const timeout = AbortSignal.timeout(timeoutMs);
			const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;
			const started = performance.now();
			let failure: PlatformError;
			try {
				// eslint-disable-next-line no-await-in-loop
				return await attemptOnce(signal, attempt);
			} catch (error) {
				if (call.signal?.aborted) {
					throw call.signal.reason ?? error;
				}

				failure = this.classify(error, operation, timeout.aborted, timeoutMs);
				if (!(failure instanceof PlatformApiError)) {
					this.log({method: operation.method, path: operation.path, attempt, durationMs: performance.now() - started, error: failure.message});
				}
			}

			const delay = this.retryDelay(failure, policy, attempt);
			if (delay === undefined || attempt > retries) {
				throw failure;
			}

			this.log({method: operation.method, path: operation.path, attempt, durationMs: 0, retryInMs: Math.round(delay), error: failure.message});
			// eslint-disable-next-line no-await-in-loop
			await sleep(delay, undefined, call.signal ? {signal: call.signal} : undefined);
		}
	}

	private classify(error: unknown, operation: Pick<Operation, 'method' | 'path'>, timedOut: boolean, timeoutMs: number): PlatformError {
		if (error instanceof PlatformError) {
			return error;
		}

		if (timedOut) {
			return new PlatformTimeoutError({method: operation.method, path: operation.path, timeoutMs});
		}

		const code = errorCode(error);
		if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
			return new PlatformTimeoutError({method: operation.method, path: operation.path, timeoutMs});
		}

		const target = operation.method === 'PUT' ? operation.path.split('/')[0] ?? operation.path : new URL(this.baseUrl).host;
		return new PlatformConnectionError({method: operation.method, path: operation.path, target, code, cause: error});
	}

	/** The wait before the next attempt, or undefined when the failure is final. */
	private retryDelay(failure: PlatformError, policy: RetryPolicy, attempt: number): number | undefined {
		const base = this.options.retryBaseMs ?? 500;
		const cap = this.options.retryCapMs ?? 8000;
		const backoff = Math.min(cap, base * (2 ** (attempt - 1)));
		// Full jitter on the upper half keeps retries spread without ever waiting less than half.
		const jittered = (backoff / 2) + (Math.random() * backoff / 2);
		if (failure instanceof PlatformApiError) {
			const retryAfter = failure.retryAfterSeconds;
			const honoured = retryAfter === undefined ? undefined : Math.min(retryAfter, this.options.maxRetryAfterSeconds ?? 60) * 1000;
			if (policy === 'unprocessed-only') {
				if (failure.status === 429) {
					return honoured ?? jittered;
				}

				if (failure.status === 503 && honoured !== undefined) {
					return honoured;
				}

				return undefined;
			}

			if (!isRetryableStatus(failure.status)) {
				return undefined;
			}

			return honoured ?? jittered;
		}

		if (failure instanceof PlatformConnectionError) {
			if (failure.code && refusedCodes.has(failure.code)) {
				return jittered;
			}

			if (policy === 'idempotent' && (!failure.code || resetCodes.has(failure.code))) {
				return jittered;
			}

			return undefined;
		}

		if (failure instanceof PlatformTimeoutError) {
			return policy === 'idempotent' ? jittered : undefined;
		}

		return undefined;
	}

	private log(entry: Omit<RequestLogEntry, 'status' | 'requestId'> & {status?: number; requestId?: string | undefined}): void {
		if (!this.options.onRequest) {
			return;
		}

		const clean: RequestLogEntry = {method: entry.method, path: entry.path, attempt: entry.attempt, durationMs: Math.round(entry.durationMs)};
		if (entry.status !== undefined) {
			clean.status = entry.status;
		}

		if (entry.requestId) {
			clean.requestId = entry.requestId;
		}

		if (entry.error) {
			clean.error = entry.error;
		}

		if (entry.key) {
			clean.key = entry.key;
		}

		if (entry.retryInMs !== undefined) {
			clean.retryInMs = entry.retryInMs;
		}

		this.options.onRequest(clean);
	}
}

const invalidJson = Symbol('invalid-json');

function safeJson(text: string): unknown {
	if (text.trim() === '') {
		return null;
	}

	try {
		return JSON.parse(text) as unknown;
	} catch {
		return invalidJson;
	}
}

function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
	const value = headers[name];
	return Array.isArray(value) ? value[0] : value;
}

/** Retry-After as seconds (delta-seconds or an HTTP date), or undefined. */
export function parseRetryAfter(value: string | undefined): number | undefined {
	if (!value) {
		return undefined;
	}

	if (/^\d+(\.\d+)?$/.test(value.trim())) {
		return Number(value.trim());
	}

	const date = Date.parse(value);
	if (Number.isNaN(date)) {
		return undefined;
	}

	return Math.max(0, (date - Date.now()) / 1000);
}

/** Never let a key leak through an echoed error message. */
function redact(message: string, key: string): string {
	return key && key.length >= 8 ? message.split(key).join(maskSecret(key)) : message;
}
