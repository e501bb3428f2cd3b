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
} from '../../platform/types.js';

/**
 * Every call names the event's user and company; `signal` cuts it off. Over HTTP, `timeoutMs` and
 * `totalTimeoutMs` replace the client's deadlines for the call, and `sentOnce` keeps a write from
 * being sent twice (platform/client-options.ts); the in-memory port ignores them.
 */
export type PortCall = {userId: string; companyId: string; signal?: AbortSignal; timeoutMs?: number; totalTimeoutMs?: number; sentOnce?: boolean};

export type AnswerPort = {
	/** Only the log's `id` is read. */
	createMessageLog(body: MessageLogCreate, call: PortCall): Promise<MessageLog>;
	updateMessageLog(messageLogId: string, body: MessageLogUpdate, call: PortCall): Promise<unknown>;
	/** A list, or null or absent for none; each item is used by its `text` or its string form. */
	search(body: SearchRequest, call: PortCall): Promise<unknown>;
	/** `choices[0].message.content` is read. */
	chatCompletion(body: ChatCompletionRequest, call: PortCall): Promise<ChatCompletion>;
	modifyMessage(messageId: string, body: MessageModify, call: PortCall): Promise<unknown>;
	/** Reads a message back (GET /messages/{id}?chatId=): a resumed answer checks it before writing; `text` and `completedAt` are read. */
	getMessage(messageId: string, chatId: string, call: PortCall): Promise<unknown>;
};
