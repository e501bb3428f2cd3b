/**
 * Wire shapes of the platform API (../shared/platform-api.md). Unknown extra fields are kept.
 * Answer types say what the client guarantees after decoding (`schemas.ts` is checked against
 * them): the fields the program relies on are required, the ones only shown may be absent or null.
 */

export type IsoTimestamp = string;

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

export type MessageRole = 'USER' | 'ASSISTANT' | 'SYSTEM';

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

/** DELETE /space/chat/{chatId}. */
export type DeletedChat = {
	id?: string;
	[key: string]: unknown;
};

export type ContentInput = {
	key: string;
	title: string;
	mimeType: string;
	byteSize?: number;
};

export type ContentUpsert = {
	input: ContentInput;
	chatId?: string;
	fileUrl?: string;
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

export type ContentWhere = {
	id?: {equals?: string; in?: string[]};
};

export type ContentSearch = {
	where: ContentWhere;
	chatId?: string;
	includeFailedContent?: boolean;
};

export type SearchType = 'COMBINED' | 'FULL_TEXT' | 'VECTOR';

export type SearchRequest = {
	searchString: string;
	searchType: SearchType;
	limit: number;
	chatId?: string;
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

export type CompletionMessage = {role: 'system' | 'user' | 'assistant'; content: string};

export type ChatCompletionRequest = {
	model: string;
	messages: CompletionMessage[];
	options?: {temperature?: number; [key: string]: unknown};
};

export type ChatCompletion = {
	choices: Array<{
		index?: number;
		message: {role?: string; content: string; [key: string]: unknown};
		finish_reason?: string | null;
	}>;
	[key: string]: unknown;
};

export type MessageLogStatus = 'RUNNING' | 'COMPLETED' | 'FAILED';

export type MessageLogCreate = {
	messageId: string;
	text: string;
	status: MessageLogStatus;
	order: number;
};

export type MessageLogUpdate = {
	text?: string;
	status?: MessageLogStatus;
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

export type MessageModify = {
	chatId: string;
	text: string;
	stoppedStreamingAt?: IsoTimestamp;
	completedAt?: IsoTimestamp;
};

export type SpaceMessageCreate = {
	assistantId: string;
	/** Without it the platform starts a chat and names it in the answer's `chatId`. */
	chatId?: string;
	text: string;
	toolChoices?: string[];
	skillChoices?: string[];
};

/** Webhook envelope as delivered by the platform. */
export type WebhookEvent<P = Record<string, unknown>> = {
	id: string;
	version: string;
	event: string;
	createdAt: string;
	userId: string;
	companyId: string;
	payload: P;
};

export type UserMessageCreatedPayload = {
	chatId: string;
	assistantId: string;
	text: string;
};

export type ExternalModuleChosenPayload = {
	name: string;
	description: string;
	configuration: Record<string, unknown>;
	chatid: string;
	assistantId: string;
	userMessage: {id: string; text: string; createdAt: IsoTimestamp};
	assistantMessage: {id: string; createdAt: IsoTimestamp};
};

export const eventTypes = {
	userMessageCreated: 'platform.chat.user-message.created',
	externalModuleChosen: 'platform.chat.external-module.chosen',
} as const;

export const apiVersion = '2023-12-06';
