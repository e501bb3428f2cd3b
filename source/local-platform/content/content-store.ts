import {isRecord} from '../../format/value.js';
import type {LocalContent} from '../records.js';
import {isoNow} from '../clock.js';
import {quotaExceeded, type Caller, type ServiceContext} from '../context.js';
import {badRequest, notFound, optionalString, type JsonObject} from '../http/http.js';
import {checkFinalize, newContentRecord, readUpsertBody, type ContentRecord} from './content-record.js';

export type {ContentRecord} from './content-record.js';

/** Content records: upsert by key within a scope (a chat, or company-wide), content search, pre-signed addresses. */
export class ContentStore {
	private readonly contents = new Map<string, ContentRecord>();
	private readonly contentKeys = new Map<string, string>();

	constructor(
		private readonly context: ServiceContext,
		/** Throws 404 unless the chat exists for the caller's company. */
		private readonly chatFor: (chatId: string, caller: Caller) => unknown,
	) {}

	/** The stored record, whatever its company. */
	record(id: string): ContentRecord | undefined {
		return this.contents.get(id);
	}

	/** A content as the API shows it, or undefined. */
	get(id: string): LocalContent | undefined {
		const record = this.contents.get(id);
		return record === undefined ? undefined : this.view(record);
	}

	blobUrl(content: ContentRecord, permission: 'r' | 'w'): string {
		const token = permission === 'w' ? content.writeToken : content.readToken;
		return `${this.context.baseUrl()}/blob/${encodeURIComponent(content.id)}?sp=${permission}&token=${token}`;
	}

	private view(content: ContentRecord): LocalContent {
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
	upsert(body: JsonObject, caller: Caller): LocalContent {
		const input = readUpsertBody(body);
		const {chatId} = input;
		if (chatId !== undefined) {
			this.chatFor(chatId, caller);
		}

		const scopeKey = this.contentKey(caller.companyId, chatId, input.key);
		const existingId = this.contentKeys.get(scopeKey);
		let content = existingId === undefined ? undefined : this.contents.get(existingId);
		const at = isoNow(this.context.clock);
		if (content === undefined) {
			if (this.contents.size >= this.context.limits.maxContents) {
				throw quotaExceeded('contents', this.context.limits.maxContents);
			}

			content = newContentRecord(input, caller.companyId, body.ingestionConfig, at);
		}

		if (input.fileUrl !== undefined) {
			checkFinalize(content, input.fileUrl, input.byteSize);
			content.finalizedAt ??= at;
		}

		content.title = input.title;
		content.mimeType = input.mimeType;
		if (body.ingestionConfig !== undefined) {
			content.ingestionConfig = body.ingestionConfig;
		}

		content.updatedAt = at;
		this.contents.set(content.id, content);
		this.contentKeys.set(scopeKey, content.id);
		return this.view(content);
	}

	/**
	 * DELETE /content/{id}?chatId=: the content is gone (a later search misses it, an upsert of its
	 * key creates a new one). A content of a chat is found only with that chat's id; 404 otherwise.
	 */
	remove(contentId: string, chatId: string | undefined, caller: Caller): ContentRecord {
		const content = this.contents.get(contentId);
		if (content === undefined || content.companyId !== caller.companyId || content.chatId !== chatId) {
			throw notFound(`Content ${contentId} was not found${chatId === undefined ? '' : ` in chat ${chatId}`}`);
		}

		this.contents.delete(content.id);
		this.contentKeys.delete(this.contentKey(content.companyId, content.chatId, content.key));
		// A running ingestion is no longer current, so it stops without indexing anything.
		content.generation++;
		return content;
	}

	/** POST /content/search: `where.id` / `where.key` with `equals` or `in`; FAILED content only with includeFailedContent. */
	search(body: JsonObject, caller: Caller): LocalContent[] {
		const where = body.where ?? {};
		if (!isRecord(where)) {
			throw badRequest('"where" must be an object');
		}

		const filters: Array<(content: ContentRecord) => boolean> = [];
		for (const [field, condition] of Object.entries(where)) {
			if (field !== 'id' && field !== 'key') {
				throw badRequest(`where.${field} is not supported by the local platform (use id or key)`);
			}

			if (!isRecord(condition)) {
				throw badRequest(`where.${field} must be an object such as {equals: "..."}`);
			}

			for (const [operator, value] of Object.entries(condition)) {
				if (operator === 'equals' && typeof value === 'string') {
					filters.push(content => content[field] === value);
				} else if (operator === 'in' && Array.isArray(value) && value.every(item => typeof item === 'string')) {
					const set = new Set(value);
					filters.push(content => set.has(content[field]));
				} else {
					throw badRequest(`where.${field}.${operator} is not supported (use equals: string or in: string[])`);
				}
			}
		}

		const chatId = optionalString(body, 'chatId');
		const includeFailed = body.includeFailedContent === true;
		const out: LocalContent[] = [];
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
				out.push(this.view(content));
			}
		}

		return out;
	}

}
