import {createReadStream} from 'node:fs';
import type {IncomingMessage, ServerResponse} from 'node:http';
import {pipeline} from 'node:stream/promises';
import mime from 'mime-types';
import type {BlobStore} from './blobs.js';
import {headerValue, now, quotaExceeded, type Caller, type ServiceContext} from './context.js';
import {chunkPages, extractFile, ParseError} from './extract.js';
import {HttpError, badRequest, isObject, optionalString, requiredString, type JsonObject} from './http.js';
import {newId, newToken} from './ids.js';
import {ChunkIndex, searchTypes, type ChunkHit, type IndexedChunk, type LocalSearchType} from './search-index.js';
import {abortableSleep} from './timers.js';

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

function normalizeMime(mimeType: string, key: string): string {
	const base = (mimeType.split(';')[0] ?? '').trim().toLowerCase();
	if (base !== '') {
		return base;
	}

	return mime.lookup(key) || 'application/octet-stream';
}

/**
 * Contents, their bytes (the pre-signed blob host) and their ingestion into the search index.
 */
export class ContentStore {
	private readonly index = new ChunkIndex();
	private readonly contents = new Map<string, ContentRecord>();
	private readonly contentKeys = new Map<string, string>();

	constructor(
		private readonly context: ServiceContext,
		private readonly blobs: BlobStore,
		private readonly ingestionStepMs: number,
		/** Throws 404 unless the chat exists for the caller's company. */
		private readonly chatFor: (chatId: string, caller: Caller) => unknown,
	) {}

	/** A content as the API shows it, or undefined. */
	get(id: string): Record<string, unknown> | undefined {
		const record = this.contents.get(id);
		return record === undefined ? undefined : this.view(record);
	}

	/** Chunks of FINISHED content in scope, best first (used by the built-in assistant). */
	searchChunks(query: string, options: {companyId: string; chatId?: string; limit: number; searchType: LocalSearchType}): ChunkHit[] {
		return this.index.search(query, options);
	}

	private blobUrl(content: ContentRecord, permission: 'r' | 'w'): string {
		const token = permission === 'w' ? content.writeToken : content.readToken;
		return `${this.context.baseUrl()}/blob/${encodeURIComponent(content.id)}?sp=${permission}&token=${token}`;
	}

	private view(content: ContentRecord): Record<string, unknown> {
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
	upsertContent(body: JsonObject, caller: Caller): Record<string, unknown> {
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
			if (this.contents.size >= this.context.limits.maxContents) {
				throw quotaExceeded('contents', this.context.limits.maxContents);
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
		return this.view(content);
	}

	private setIngestionState(content: ContentRecord, state: string, error?: string): void {
		content.ingestionState = state;
		content.ingestionError = error;
		content.updatedAt = now();
		this.context.emit({type: 'ingestion', at: content.updatedAt, contentId: content.id, key: content.key, state, ...(error === undefined ? {} : {error})});
	}

	private startIngestion(content: ContentRecord): void {
		const generation = ++content.generation;
		this.index.removeContent(content.id);
		content.chunkCount = 0;
		this.setIngestionState(content, 'QUEUED');
		this.context.track(this.ingest(content, generation));
	}

	/**
	 * QUEUED → INGESTION_READING (text extraction) → INGESTION_CHUNKING → INGESTION_EMBEDDING →
	 * FINISHED (chunks become searchable), each state held for `ingestionStepMs`. Unparsable
	 * bytes end in FAILED_PARSING. A newer upload of the same content supersedes this run.
	 */
	private async ingest(content: ContentRecord, generation: number): Promise<void> {
		const current = (): boolean => !this.context.signal.aborted && content.generation === generation;
		const step = async (): Promise<boolean> => {
			await abortableSleep(this.ingestionStepMs, this.context.signal);
			return current();
		};

		if (!await step()) {
			return;
		}

		this.setIngestionState(content, 'INGESTION_READING');
		let pages;
		try {
			const extraction = await extractFile(this.blobs.pathOf(content.id), content.mimeType, content.byteSize ?? 0, this.context.limits);
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
		const room = Math.max(0, this.context.limits.maxIndexedChunks - (this.index.size - content.chunkCount));
		const chunks = chunkPages(pages).slice(0, Math.min(this.context.limits.maxChunksPerContent, room));
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

	searchContent(body: JsonObject, caller: Caller): Array<Record<string, unknown>> {
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
				out.push(this.view(content));
			}
		}

		return out;
	}

	search(body: JsonObject, caller: Caller): Array<Record<string, unknown>> {
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

	async handleBlob(method: string, url: URL, request: IncomingMessage, response: ServerResponse): Promise<void> {
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
}
