/** A content record of the local platform, and what an upsert asks of it. */
import mime from 'mime-types';
import {isRecord} from '../../format/value.js';
import {badRequest, optionalString, requiredString, type JsonObject} from '../http/http.js';
import {newId, newToken} from '../ids.js';

export type ContentRecord = {
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

/** An upsert's body as read: its key, title and type, the size it says, its chat and (finalize) the file's address. */
export type UpsertInput = {
	key: string;
	title: string;
	mimeType: string;
	byteSize: unknown;
	chatId: string | undefined;
	fileUrl: string | undefined;
};

/** Reads an upsert's body; 400 for a missing input or key, or a size that is not a non-negative integer. */
export function readUpsertBody(body: JsonObject): UpsertInput {
	if (!isRecord(body.input)) {
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

	return {key, title, mimeType, byteSize, chatId: optionalString(body, 'chatId'), fileUrl: optionalString(body, 'fileUrl')};
}

/** A new content, queued for ingestion, owned by its chat (or the company without one). */
export function newContentRecord({key, title, mimeType, chatId}: UpsertInput, companyId: string, ingestionConfig: unknown, at: string): ContentRecord {
	return {
		id: newId('cont'),
		key,
		title,
		mimeType,
		chatId,
		companyId,
		ownerId: chatId ?? companyId,
		byteSize: null,
		ingestionState: 'QUEUED',
		ingestionError: undefined,
		ingestionConfig,
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

/** The finalize step names this content's own blob, and the size it says is the size uploaded; 400 otherwise. */
export function checkFinalize(content: ContentRecord, fileUrl: string, byteSize: unknown): void {
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
}
