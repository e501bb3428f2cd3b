import {open, stat} from 'node:fs/promises';
import {mask} from '../format/index.js';
import {userAgent as defaultUserAgent} from '../version.js';
import {runAttempts, type AttemptPlan, type RequestLogEntry} from './attempts.js';
import {PlatformApiError, platformMessageFrom} from './errors.js';
import {headerValue, parseRetryAfter, parseJsonBody, redact} from './http.js';
import type {OperationName} from './retry.js';
import {decodeAnswer, notJson, type Answer, type AnswerOperation} from './schemas.js';
import {createTransport, type Transport} from './transport.js';
import {
	apiVersion,
	type Chat,
	type ChatCompletion,
	type ChatCompletionRequest,
	type ChatMessages,
	type Content,
	type DeletedChat,
	type KeyRotation,
	type Message,
	type MessageList,
	type MessageLog,
	type SearchResult,
	type Space,
	type ContentSearch,
	type ContentUpsert,
	type MessageLogCreate,
	type MessageLogUpdate,
	type MessageModify,
	type SearchRequest,
	type SpaceMessageCreate,
} from './types.js';

export type {RequestLogEntry} from './attempts.js';
export {parseRetryAfter} from './http.js';

/** Returns the API key to use; read on every request so a key rotated on disk is picked up. */
export type KeySupplier = () => string;

/** Time allowed to one small JSON call, and to all its attempts together (ms). */
export const defaultAttemptTimeoutMs = 15_000;
export const defaultTotalTimeoutMs = 45_000;
/** A blob PUT gets this plus one second per MiB per attempt, and twice that in all. */
const blobBaseTimeoutMs = 60_000;

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
	/** Time allowed to one attempt, ms. Default 15 000 (JSON calls); a blob PUT's base, default 60 000. */
	timeoutMs?: number;
	/** Time allowed to an operation's attempts and waits together, ms. Default 45 000, never less than one attempt's. */
	totalTimeoutMs?: number;
	/** Connect timeout, ms. Default 10 000. */
	connectTimeoutMs?: number;
	userAgent?: string;
	onRequest?: (entry: RequestLogEntry) => void;
};

export type CallOptions = {
	userId?: string;
	companyId?: string;
	signal?: AbortSignal;
	/** Time allowed to one attempt, ms. */
	timeoutMs?: number;
	/** Time allowed to all attempts together, ms. */
	totalTimeoutMs?: number;
};

export type BlobUpload = {
	filePath: string;
	contentType: string;
	/** Size in bytes; read from the file when absent. */
	size?: number;
	onProgress?: (sentBytes: number, totalBytes: number) => void;
	signal?: AbortSignal;
	/** Time allowed to one attempt, ms. */
	timeoutMs?: number;
};

type JsonCall<O extends AnswerOperation> = {
	operation: O;
	method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
	path: string;
	body?: unknown;
	call?: CallOptions | undefined;
};

const segment = encodeURIComponent;

/** Size of each of the two buffers a file is sent through. */
const blobChunkBytes = 256 * 1024;

/**
 * Sends the first `size` bytes of a file through two buffers: one is read into while the other
 * is being written, and each is reused once its write has finished. Memory stays the same for any
 * file size and leaves nothing behind for the garbage collector.
 */
async function sendFile(filePath: string, size: number, write: (chunk: Uint8Array) => Promise<void>, onProgress: BlobUpload['onProgress']): Promise<void> {
	const handle = await open(filePath, 'r');
	try {
		const buffers = [Buffer.allocUnsafe(blobChunkBytes), Buffer.allocUnsafe(blobChunkBytes)] as const;
		let writing: Promise<void> = Promise.resolve();
		let sent = 0;
		for (let index = 0; sent < size; index++) {
			// Each read waits for that buffer's previous write: two buffers, no more.
			const buffer = index % 2 === 0 ? buffers[0] : buffers[1];
			const {bytesRead} = await handle.read(buffer, 0, Math.min(buffer.length, size - sent), sent);
			await writing;
			if (bytesRead === 0) {
				throw new Error(`${filePath} ended at ${sent} of ${size} bytes while it was being sent`);
			}

			sent += bytesRead;
			const reached = sent;
			writing = write(buffer.subarray(0, bytesRead)).then(() => {
				onProgress?.(reached, size);
			});
		}

		await writing;
	} finally {
		await handle.close();
	}
}

export class PlatformClient {
	readonly baseUrl: string;
	private readonly options: PlatformClientOptions;
	private readonly keySupplier: KeySupplier;
	private readonly transport: Transport;

	constructor(options: PlatformClientOptions) {
		this.options = options;
		this.baseUrl = options.baseUrl.replace(/\/+$/, '');
		const {apiKey} = options;
		this.keySupplier = typeof apiKey === 'function' ? apiKey : () => apiKey;
		this.transport = createTransport({connectTimeoutMs: options.connectTimeoutMs ?? 10_000});
	}

	/** Closes the keep-alive connections this client opened. */
	async close(): Promise<void> {
		await this.transport.close();
	}

	/** POST /v2/keys/rotate: the contract names no body, so none is sent. */
	async rotateKey(call?: CallOptions): Promise<KeyRotation> {
		return this.send({operation: 'rotateKey', method: 'POST', path: '/v2/keys/rotate', call});
	}

	async createChat(body: {title: string; assistantId: string}, call?: CallOptions): Promise<Chat> {
		return this.send({operation: 'createChat', method: 'POST', path: '/space/chat', body, call});
	}

	async getSpace(spaceId: string, call?: CallOptions): Promise<Space> {
		return this.send({operation: 'getSpace', method: 'GET', path: `/space/${segment(spaceId)}`, call});
	}

	async createSpaceMessage(body: SpaceMessageCreate, call?: CallOptions): Promise<Message> {
		return this.send({operation: 'createSpaceMessage', method: 'POST', path: '/space/message', body: {toolChoices: [], skillChoices: [], ...body}, call});
	}

	async getLatestMessage(chatId: string, call?: CallOptions): Promise<Message> {
		return this.send({operation: 'getLatestMessage', method: 'GET', path: `/space/${segment(chatId)}/messages/latest`, call});
	}

	async getChatMessages(chatId: string, call?: CallOptions): Promise<ChatMessages> {
		return this.send({operation: 'getChatMessages', method: 'GET', path: `/space/chat/${segment(chatId)}/messages`, call});
	}

	/** GET /messages/{id}?chatId= (the SDK reads a message back this way). */
	async getMessage(messageId: string, chatId: string, call?: CallOptions): Promise<Message> {
		return this.send({operation: 'getMessage', method: 'GET', path: `/messages/${segment(messageId)}?chatId=${segment(chatId)}`, call});
	}

	/** GET /messages?chatId=: `{object: "list", data: [message]}`. */
	async listMessages(chatId: string, call?: CallOptions): Promise<MessageList> {
		return this.send({operation: 'listMessages', method: 'GET', path: `/messages?chatId=${segment(chatId)}`, call});
	}

	/** DELETE /space/chat/{chatId}: the chat and its messages are gone. */
	async deleteChat(chatId: string, call?: CallOptions): Promise<DeletedChat> {
		return this.send({operation: 'deleteChat', method: 'DELETE', path: `/space/chat/${segment(chatId)}`, call});
	}

	/**
	 * POST /content/upsert. Without `fileUrl` it creates the content (a create: not resent where it
	 * may have been processed); with `fileUrl` it finalizes one (idempotent).
	 */
	async upsertContent(body: ContentUpsert, call?: CallOptions): Promise<Content> {
		const operation = body.fileUrl === undefined ? 'createContent' : 'finalizeContent';
		return this.send({operation, method: 'POST', path: '/content/upsert', body, call});
	}

	async searchContent(body: ContentSearch, call?: CallOptions): Promise<Content[]> {
		return this.send({operation: 'searchContent', method: 'POST', path: '/content/search', body, call});
	}

	/** POST /search/search; `null` when the platform answers with no list (spec §2.4). */
	async search(body: SearchRequest, call?: CallOptions): Promise<SearchResult[] | null> {
		return this.send({operation: 'search', method: 'POST', path: '/search/search', body, call});
	}

	async chatCompletion(body: ChatCompletionRequest, call?: CallOptions): Promise<ChatCompletion> {
		return this.send({operation: 'chatCompletion', method: 'POST', path: '/openai/chat/completions', body, call});
	}

	async createMessageLog(body: MessageLogCreate, call?: CallOptions): Promise<MessageLog> {
		return this.send({operation: 'createMessageLog', method: 'POST', path: '/message-log', body, call});
	}

	async updateMessageLog(messageLogId: string, body: MessageLogUpdate, call?: CallOptions): Promise<MessageLog> {
		return this.send({operation: 'updateMessageLog', method: 'PATCH', path: `/message-log/${segment(messageLogId)}`, body, call});
	}

	async modifyMessage(messageId: string, body: MessageModify, call?: CallOptions): Promise<Message> {
		return this.send({operation: 'modifyMessage', method: 'PATCH', path: `/messages/${segment(messageId)}`, body, call});
	}

	/**
	 * Streams a file to a pre-signed blob address with PUT. No platform credentials are sent.
	 * A retry re-opens the file. Time allowed grows with the size (at least 1 MiB/s assumed).
	 */
	async putBlob(writeUrl: string, upload: BlobUpload): Promise<void> {
		const size = upload.size ?? (await stat(upload.filePath)).size;
		const url = new URL(writeUrl);
		const shownPath = `${url.host}${url.pathname}`;
		const attemptTimeoutMs = upload.timeoutMs ?? (this.options.timeoutMs ?? blobBaseTimeoutMs) + (Math.ceil(size / 1024 / 1024) * 1000);
		const plan = this.plan('putBlob', 'PUT', shownPath, {timeoutMs: attemptTimeoutMs, totalTimeoutMs: 2 * attemptTimeoutMs, ...(upload.signal ? {signal: upload.signal} : {})});
		plan.target = url.host;
		await runAttempts(plan, async (signal, attempt) => {
			const {filePath, onProgress} = upload;
			onProgress?.(0, size);
			const started = performance.now();
			const response = await this.transport.request(url, {
				method: 'PUT',
				signal,
				headers: {
					'content-type': upload.contentType,
					'content-length': String(size),
					'x-ms-blob-type': 'BlockBlob',
					'user-agent': this.options.userAgent ?? defaultUserAgent,
				},
				body: async write => sendFile(filePath, size, write, onProgress),
			});
			const {text} = response;
			const requestId = headerValue(response.headers, 'request-id') ?? headerValue(response.headers, 'x-ms-request-id');
			this.log({method: 'PUT', path: shownPath, attempt, status: response.statusCode, requestId, durationMs: performance.now() - started});
			if (response.statusCode < 200 || response.statusCode >= 300) {
				throw new PlatformApiError({
					operation: 'putBlob',
					method: 'PUT',
					path: shownPath,
					status: response.statusCode,
					platformMessage: platformMessageFrom(parseJsonBody(text).value, text.trim().slice(0, 200) || `HTTP ${response.statusCode}`),
					requestId,
					retryAfterSeconds: parseRetryAfter(headerValue(response.headers, 'retry-after')),
				});
			}
		});
	}

	private plan(operation: OperationName, method: string, path: string, call: CallOptions = {}): AttemptPlan {
		const attemptTimeoutMs = call.timeoutMs ?? this.options.timeoutMs ?? defaultAttemptTimeoutMs;
		return {
			operation,
			method,
			path,
			target: new URL(this.baseUrl).host,
			retries: this.options.retries ?? 3,
			attemptTimeoutMs,
			totalTimeoutMs: call.totalTimeoutMs ?? Math.max(this.options.totalTimeoutMs ?? defaultTotalTimeoutMs, attemptTimeoutMs),
			signal: call.signal,
			timing: {
				baseMs: this.options.retryBaseMs ?? 500,
				capMs: this.options.retryCapMs ?? 8000,
				maxRetryAfterSeconds: this.options.maxRetryAfterSeconds ?? 60,
				random: Math.random,
			},
			log: entry => {
				this.log(entry);
			},
		};
	}

	private async send<O extends AnswerOperation>(operation: JsonCall<O>): Promise<Answer<O>> {
		const {method, path} = operation;
		return runAttempts(this.plan(operation.operation, method, path, operation.call), async (signal, attempt) => {
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
			if (operation.body !== undefined) {
				body = JSON.stringify(operation.body);
				headers['content-type'] = 'application/json';
			}

			const started = performance.now();
			const response = await this.transport.request(new URL(`${this.baseUrl}${path}`), {method, signal, headers, body});
			const {text} = response;
			const requestId = headerValue(response.headers, 'request-id');
			const status = response.statusCode;
			this.log({method, path, attempt, status, requestId, durationMs: performance.now() - started, key: mask(key)});
			const parsed = parseJsonBody(text);
			if (status < 200 || status >= 300) {
				throw new PlatformApiError({
					operation: operation.operation,
					method,
					path,
					status,
					platformMessage: redact(platformMessageFrom(parsed.value, text.trim().slice(0, 200) || `HTTP ${status}`), key),
					requestId,
					retryAfterSeconds: parseRetryAfter(headerValue(response.headers, 'retry-after')),
				});
			}

			const context = {operation: operation.operation, method, path, status, requestId, empty: parsed.empty};
			if (!parsed.json) {
				notJson(context);
			}

			return decodeAnswer(parsed.value, context);
		});
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
