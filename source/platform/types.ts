/**
 * Wire shapes of the platform API: what this program sends, the webhook events it receives, and
 * each answer as the client returns it after decoding. The answer types come from `schemas.ts`,
 * which decodes only what the program reads (see the rule there): a field the program needs is
 * required, one it can do without is optional, and anything else is kept untyped.
 * The full records the platform usually answers with are in `local-platform/records.ts`.
 */
import type {Answer} from './schemas.js';

export type IsoTimestamp = string;

export type KeyRotation = Answer<'rotateKey'>;
export type Chat = Answer<'createChat'>;
export type Space = Answer<'getSpace'>;
/** The answer to POST /space/message: the user's message, when the platform says which it is. */
export type SentMessage = Answer<'createSpaceMessage'>;
/** A message as the reply poll, the history and a retrieve read it. */
export type Message = Answer<'getLatestMessage'>;
export type ChatMessages = Answer<'getChatMessages'>;
export type MessageList = Answer<'listMessages'>;
export type Content = Answer<'createContent'>;
/** One record of a content search. */
export type ContentState = Answer<'searchContent'>[number];
/** Search results: a list that may be absent; each item is used by its `text` or its string form. */
export type SearchResults = Answer<'search'>;
export type ChatCompletion = Answer<'chatCompletion'>;
export type MessageLog = Answer<'createMessageLog'>;

/** A `Message` role. */
export type MessageRole = 'USER' | 'ASSISTANT' | 'SYSTEM';

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

export type ContentWhere = {
	id?: {equals?: string; in?: string[]};
	key?: {equals?: string};
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

export type CompletionMessage = {role: 'system' | 'user' | 'assistant'; content: string};

export type ChatCompletionRequest = {
	model: string;
	messages: CompletionMessage[];
	options?: {temperature?: number; [key: string]: unknown};
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
