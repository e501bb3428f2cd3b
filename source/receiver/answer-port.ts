/**
 * The narrow port the answer sequence (spec §6.2) writes through. `serve` implements it with the
 * platform client (HTTP); the local platform's built-in assistant implements it in memory, so one
 * implementation of the answer serves both.
 */
import type {
	ChatCompletion,
	ChatCompletionRequest,
	MessageLog,
	MessageLogCreate,
	MessageLogUpdate,
	MessageModify,
	SearchRequest,
	SearchResult,
} from '../platform/types.js';

/** Every call names the event's user and company; `signal` cuts it off. */
export type PortCall = {userId: string; companyId: string; signal?: AbortSignal};

export type AnswerPort = {
	createMessageLog(body: MessageLogCreate, call: PortCall): Promise<MessageLog>;
	updateMessageLog(messageLogId: string, body: MessageLogUpdate, call: PortCall): Promise<MessageLog>;
	search(body: SearchRequest, call: PortCall): Promise<SearchResult[] | null>;
	chatCompletion(body: ChatCompletionRequest, call: PortCall): Promise<ChatCompletion>;
	modifyMessage(messageId: string, body: MessageModify, call: PortCall): Promise<unknown>;
};
