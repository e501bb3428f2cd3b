/**
 * The full records the platform answers with (the wire reference's record shapes), as the local
 * platform stores and serves them. The client relies on far less (`platform/schemas.ts`); with
 * `--answers sparse` the local platform serves only that (`sparse.ts`).
 */
import type {IsoTimestamp, MessageLogStatus} from '../platform/types.js';

export type {MessageRole} from '../platform/types.js';

export type KeyRotation = {
	new_key: string;
	old_key_expires_at: IsoTimestamp;
};

export type Chat = {
	id: string;
	title?: string;
	createdAt?: IsoTimestamp;
	[key: string]: unknown;
};

export type SpaceModule = {
	id?: string;
	name: string;
	isExternal?: boolean;
	[key: string]: unknown;
};

export type Space = {
	id?: string;
	name?: string;
	languageModel?: string;
	/** `ENABLED` or `DISABLED`. */
	chatUpload?: string;
	modules?: SpaceModule[];
	[key: string]: unknown;
};

export type Message = {
	id: string;
	chatId: string;
	/** A `MessageRole`. */
	role?: string;
	text?: string | null;
	createdAt?: IsoTimestamp;
	updatedAt?: IsoTimestamp;
	startedStreamingAt?: IsoTimestamp | null;
	stoppedStreamingAt?: IsoTimestamp | null;
	completedAt?: IsoTimestamp | null;
	/** Sent by `GET /messages/{id}?chatId=` (the SDK reads it back after a send). */
	debugInfo?: Record<string, unknown> | null;
	[key: string]: unknown;
};

export type ChatMessages = {
	messages: Message[];
	totalCount?: number;
	[key: string]: unknown;
};

/** GET /messages?chatId= (the SDK's list). */
export type MessageList = {
	object?: string;
	data: Message[];
	[key: string]: unknown;
};

export type Content = {
	id: string;
	key?: string;
	title?: string;
	mimeType?: string;
	writeUrl?: string | null;
	readUrl?: string | null;
	ingestionState?: string;
	[key: string]: unknown;
};

/** A content as the API answers it: the client's wire type with every field the local platform fills. */
export type LocalContent = Content & {
	key: string;
	title: string;
	mimeType: string;
	byteSize: number | null;
	chatId: string | null;
	ownerId: string;
	ingestionState: string;
	ingestionError?: string;
	chunkCount: number;
	writeUrl: string;
	readUrl: string;
	url: null;
	createdAt: string;
	updatedAt: string;
};

export type SearchResult = {
	id?: string;
	chunkId?: string;
	text?: string;
	key?: string;
	title?: string;
	url?: string | null;
	order?: number;
	startPage?: number;
	endPage?: number;
	[key: string]: unknown;
};

export type ChatCompletion = {
	choices: Array<{
		index?: number;
		message: {role?: string; content: string; [key: string]: unknown};
		finish_reason?: string | null;
	}>;
	[key: string]: unknown;
};

export type MessageLog = {
	id: string;
	messageId: string;
	text: string;
	status: MessageLogStatus;
	order: number;
	createdAt?: IsoTimestamp;
	updatedAt?: IsoTimestamp;
};

