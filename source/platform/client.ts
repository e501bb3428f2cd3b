/**
 * The platform API client: one method per operation of the wire contract. The JSON calls are
 * sent by `json-call.ts`, blob uploads by `blob-upload.ts`; options and attempt plans live in
 * `client-options.ts`, the request log in `request-log.ts`.
 */
import {putBlob, type BlobUpload} from './blob-upload.js';
import {retryBaseFor, type CallOptions, type ClientContext, type PlatformClientOptions} from './client-options.js';
import {sendJson, type JsonCall} from './json-call.js';
import {requestLogger} from './request-log.js';
import type {Answer, AnswerOperation} from './schemas.js';
import {createTransport} from './transport.js';
import type {
	Chat,
	ChatCompletion,
	ChatCompletionRequest,
	ChatMessages,
	Content,
	ContentSearch,
	ContentState,
	ContentUpsert,
	KeyRotation,
	Message,
	MessageList,
	MessageLog,
	MessageLogCreate,
	MessageLogUpdate,
	MessageModify,
	SearchRequest,
	SearchResults,
	SentMessage,
	Space,
	SpaceMessageCreate,
} from './types.js';

export type {RequestLogEntry} from './attempts.js';
export type {BlobUpload} from './blob-upload.js';
export {
	defaultAttemptTimeoutMs,
	defaultTotalTimeoutMs,
	type CallOptions,
	type KeySupplier,
	type PlatformClientOptions,
} from './client-options.js';
export {parseRetryAfter} from './http.js';

const segment = encodeURIComponent;

export class PlatformClient {
	readonly baseUrl: string;
	private readonly context: ClientContext;

	constructor(options: PlatformClientOptions) {
		this.baseUrl = options.baseUrl.replace(/\/+$/, '');
		const {apiKey} = options;
		this.context = {
			options,
			retryBaseMs: retryBaseFor(options),
			baseUrl: this.baseUrl,
			keySupplier: typeof apiKey === 'function' ? apiKey : () => apiKey,
			transport: createTransport({connectTimeoutMs: options.connectTimeoutMs ?? 10_000}),
			log: requestLogger(options),
		};
	}

	/** Closes the keep-alive connections this client opened. */
	async close(): Promise<void> {
		await this.context.transport.close();
	}

	/** POST /v2/keys/rotate: the contract names no body, so none is sent. */
	async rotateKey(call?: CallOptions): Promise<KeyRotation> {
		return this.send({operation: 'rotateKey', method: 'POST', path: '/v2/keys/rotate', jsonContentType: true, call});
	}

	async createChat(body: {title: string; assistantId: string}, call?: CallOptions): Promise<Chat> {
		return this.send({operation: 'createChat', method: 'POST', path: '/space/chat', body, call});
	}

	async getSpace(spaceId: string, call?: CallOptions): Promise<Space> {
		return this.send({operation: 'getSpace', method: 'GET', path: `/space/${segment(spaceId)}`, call});
	}

	async createSpaceMessage(body: SpaceMessageCreate, call?: CallOptions): Promise<SentMessage> {
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

	/** GET /openai/models: `{models: [string]}`; a cheap authenticated read naming no chat (serve's key probe). */
	async listModels(call?: CallOptions): Promise<unknown> {
		return this.send({operation: 'listModels', method: 'GET', path: '/openai/models', call});
	}

	/** GET /messages?chatId=: `{object: "list", data: [message]}`. */
	async listMessages(chatId: string, call?: CallOptions): Promise<MessageList> {
		return this.send({operation: 'listMessages', method: 'GET', path: `/messages?chatId=${segment(chatId)}`, call});
	}

	/** DELETE /space/chat/{chatId}: the chat and its messages are gone. */
	async deleteChat(chatId: string, call?: CallOptions): Promise<unknown> {
		return this.send({operation: 'deleteChat', method: 'DELETE', path: `/space/chat/${segment(chatId)}`, call});
	}

	/**
	 * POST /content/upsert, creating (or replacing) the content: a create, not resent where it may
	 * have been processed. The finalize step is `finalizeContent`.
	 */
	async upsertContent(body: Omit<ContentUpsert, 'fileUrl'>, call?: CallOptions): Promise<Content> {
		return this.send({operation: 'createContent', method: 'POST', path: '/content/upsert', body, call});
	}

	/**
	 * POST /content/upsert again with `byteSize` (and `fileUrl` = the readUrl, when the platform gave
	 * one): the bytes are in place. Idempotent; nothing of its answer is read.
	 */
	async finalizeContent(body: ContentUpsert, call?: CallOptions): Promise<void> {
		await this.send({operation: 'finalizeContent', method: 'POST', path: '/content/upsert', body, call});
	}

	/** DELETE /content/{contentId}?chatId=: the content, its chunks and its search hits are gone. */
	async deleteContent(contentId: string, chatId: string, call?: CallOptions): Promise<unknown> {
		return this.send({operation: 'deleteContent', method: 'DELETE', path: `/content/${segment(contentId)}?chatId=${segment(chatId)}`, call});
	}

	async searchContent(body: ContentSearch, call?: CallOptions): Promise<ContentState[]> {
		return this.send({operation: 'searchContent', method: 'POST', path: '/content/search', body, call});
	}

	/** POST /search/search; `null` when the platform answers with no list (spec §2.4). */
	async search(body: SearchRequest, call?: CallOptions): Promise<SearchResults> {
		return this.send({operation: 'search', method: 'POST', path: '/search/search', body, call});
	}

	async chatCompletion(body: ChatCompletionRequest, call?: CallOptions): Promise<ChatCompletion> {
		return this.send({operation: 'chatCompletion', method: 'POST', path: '/openai/chat/completions', body, call});
	}

	async createMessageLog(body: MessageLogCreate, call?: CallOptions): Promise<MessageLog> {
		return this.send({operation: 'createMessageLog', method: 'POST', path: '/message-log', body, call});
	}

	async updateMessageLog(messageLogId: string, body: MessageLogUpdate, call?: CallOptions): Promise<unknown> {
		return this.send({operation: 'updateMessageLog', method: 'PATCH', path: `/message-log/${segment(messageLogId)}`, body, call});
	}

	async modifyMessage(messageId: string, body: MessageModify, call?: CallOptions): Promise<unknown> {
		return this.send({operation: 'modifyMessage', method: 'PATCH', path: `/messages/${segment(messageId)}`, body, call});
	}

	/**
	 * Streams a file to a pre-signed blob address with PUT. No platform credentials are sent.
	 * A retry re-opens the file. Time allowed grows with the size (at least 1 MiB/s assumed).
	 */
	async putBlob(writeUrl: string, upload: BlobUpload): Promise<void> {
		await putBlob(this.context, writeUrl, upload);
	}

	private async send<O extends AnswerOperation>(operation: JsonCall<O>): Promise<Answer<O>> {
		return sendJson(this.context, operation);
	}
}
