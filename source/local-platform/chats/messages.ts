import type {Message, MessageList} from '../records.js';
import {codePointLength, cutCodePoints} from '../../format/text.js';
import {chatView, messageView, messageWithDebugInfo, type ChatRecord, type ChatStore, type MessageRecord} from './chat-store.js';
import {isoNow, type PlatformClock} from '../clock.js';
import {quotaExceeded, type Caller, type ServiceContext} from '../context.js';
import {HttpError, badRequest, notFound, objectBody, optionalString, optionalTimestamp, requiredString, type JsonObject} from '../http/http.js';
import type {MessageLogStore} from './message-logs.js';
import {created, ok, type Route} from '../http/router.js';

/** Starts answering a new space message in the background (built-in assistant or application). */
export type AnswerStarter = (chat: ChatRecord, userMessage: MessageRecord, assistantMessage: MessageRecord, caller: Caller) => void;

/** Told of every read of a message, so a streaming answer can grow as it is polled. */
export type MessageReads = {advance(message: MessageRecord): void};

/** Titles of chats started by a message without `chatId`: the message's first words. */
const startedChatTitleLength = 50;

function page(query: URLSearchParams, total: number): {skip: number; take: number} {
	const skip = Math.max(0, Number.parseInt(query.get('skip') ?? '0', 10) || 0);
	const takeText = query.get('take');
	const take = takeText === null ? total : Math.max(0, Number.parseInt(takeText, 10) || 0);
	return {skip, take};
}

/** A question longer than `maxChars` characters (code points) is refused before anything is stored. */
function checkLength(text: string, maxChars: number): void {
	const characters = text.length > maxChars ? codePointLength(text) : text.length;
	if (characters > maxChars) {
		throw new HttpError(400, 'MESSAGE_TOO_LONG', `The message text has ${characters} characters; the local platform accepts at most ${maxChars}`);
	}
}

/** PATCH /messages/{id}: `{chatId, text?, stoppedStreamingAt?, completedAt?}` (also the answer port's write). */
export function modifyMessage(chats: ChatStore, clock: PlatformClock, messageId: string, body: JsonObject, caller: Pick<Caller, 'companyId'>): Message {
	const message = chats.messageFor(messageId, caller);
	const chatId = requiredString(body, 'chatId');
	if (chatId !== message.chatId) {
		throw badRequest(`Message ${messageId} does not belong to chat ${chatId}`);
	}

	const text = optionalString(body, 'text');
	const stoppedStreamingAt = optionalTimestamp(body, 'stoppedStreamingAt');
	const completedAt = optionalTimestamp(body, 'completedAt');
	if (text !== undefined) {
		message.text = text;
	}

	if (stoppedStreamingAt !== undefined) {
		message.stoppedStreamingAt = stoppedStreamingAt;
	}

	if (completedAt !== undefined) {
		message.completedAt = completedAt;
	}

	message.updatedAt = isoNow(clock);
	return messageView(message);
}

/** Chats and messages: create, post, read, modify and delete. */
export class MessageService {
	constructor(
		private readonly context: ServiceContext,
		private readonly chats: ChatStore,
		private readonly logs: MessageLogStore,
		private readonly assistantId: () => string,
		private readonly answer: AnswerStarter,
		private readonly reads?: MessageReads,
	) {}

	createChat(body: JsonObject, caller: Caller): ReturnType<typeof chatView> {
		const assistantId = requiredString(body, 'assistantId');
		const title = optionalString(body, 'title') ?? 'New chat';
		this.checkAssistant(assistantId);
		return chatView(this.chats.createChat(title, assistantId, caller));
	}

	/** DELETE /space/chat/{chatId}: the chat, its messages and their logs are gone. */
	deleteChat(chatId: string, caller: Caller): {id: string} {
		const chat = this.chats.chatFor(chatId, caller);
		const messages = this.chats.messagesOf(chat);
		this.chats.deleteChat(chat);
		this.logs.removeFor(messages);
		return {id: chat.id};
	}

	/**
	 * POST /space/message: stores the user message and an empty, streaming assistant message,
	 * starts the answer and returns the user message. Without `chatId` a new chat is started
	 * (the answer names it in `chatId`).
	 */
	createSpaceMessage(body: JsonObject, caller: Caller): Message {
		const assistantId = requiredString(body, 'assistantId');
		const chatId = optionalString(body, 'chatId');
		const text = requiredString(body, 'text');
		checkLength(text, this.context.limits.maxMessageChars);
		for (const field of ['toolChoices', 'skillChoices']) {
			if (body[field] !== undefined && !Array.isArray(body[field])) {
				throw badRequest(`"${field}" must be an array`);
			}
		}

		let chat: ChatRecord;
		if (chatId === undefined || chatId === '') {
			this.checkAssistant(assistantId);
			chat = this.chats.createChat(cutCodePoints(text.trim(), startedChatTitleLength), assistantId, caller);
		} else {
			chat = this.chats.chatFor(chatId, caller);
			if (assistantId !== chat.assistantId) {
				throw notFound(`Assistant ${assistantId} not found for chat ${chatId}`);
			}
		}

		const {maxMessagesPerChat} = this.context.limits;
		if (chat.messageIds.length + 2 > maxMessagesPerChat) {
			throw quotaExceeded('messages per chat', maxMessagesPerChat);
		}

		const userMessage = this.chats.addMessage(chat, {
			role: 'USER',
			text,
			startedStreamingAt: null,
			stoppedStreamingAt: null,
			completedAt: isoNow(this.context.clock),
			userId: caller.userId,
		});
		const assistantMessage = this.chats.addMessage(chat, {
			role: 'ASSISTANT',
			text: null,
			startedStreamingAt: isoNow(this.context.clock),
			stoppedStreamingAt: null,
			completedAt: null,
			userId: caller.userId,
		});
		this.answer(chat, userMessage, assistantMessage, caller);
		return messageView(userMessage);
	}

	chatMessages(chatId: string, caller: Caller, query: URLSearchParams): {messages: Message[]; totalCount: number} {
		const all = this.read(this.chats.messagesOf(this.chats.chatFor(chatId, caller)));
		const {skip, take} = page(query, all.length);
		return {messages: all.slice(skip, skip + take).map(message => messageView(message)), totalCount: all.length};
	}

	latestMessage(chatId: string, caller: Caller): Message {
		const message = this.read(this.chats.messagesOf(this.chats.chatFor(chatId, caller))).at(-1);
		if (message === undefined) {
			throw notFound(`Chat ${chatId} has no messages`);
		}

		return messageView(message);
	}

	/** GET /messages/{id}?chatId=: one message with its debugInfo; the chat must be the message's. */
	retrieveMessage(messageId: string, query: URLSearchParams, caller: Caller): ReturnType<typeof messageWithDebugInfo> {
		const chatId = query.get('chatId');
		if (chatId === null || chatId.trim() === '') {
			throw badRequest('The "chatId" query parameter is required');
		}

		const message = this.messageInChat(messageId, chatId, caller);
		this.read([message]);
		return messageWithDebugInfo(message);
	}

	/** GET /messages?chatId=: the chat's messages, oldest first. */
	listMessages(query: URLSearchParams, caller: Caller): MessageList {
		const chatId = query.get('chatId');
		if (chatId === null || chatId.trim() === '') {
			throw badRequest('The "chatId" query parameter is required');
		}

		const all = this.read(this.chats.messagesOf(this.chats.chatFor(chatId, caller)));
		const {skip, take} = page(query, all.length);
		return {object: 'list', data: all.slice(skip, skip + take).map(message => messageView(message))};
	}

	/** PATCH /messages/{id}: `{chatId, text?, stoppedStreamingAt?, completedAt?}`. */
	modifyMessage(messageId: string, body: JsonObject, caller: Pick<Caller, 'companyId'>): Message {
		return modifyMessage(this.chats, this.context.clock, messageId, body, caller);
	}

	/** Each streaming message among `messages` moves one step, as the client reads it. */
	private read(messages: MessageRecord[]): MessageRecord[] {
		for (const message of messages) {
			if (message.stoppedStreamingAt === null) {
				this.reads?.advance(message);
			}
		}

		return messages;
	}

	private messageInChat(messageId: string, chatId: string, caller: Caller): MessageRecord {
		const chat = this.chats.chatFor(chatId, caller);
		const message = this.chats.messageFor(messageId, caller);
		if (message.chatId !== chat.id) {
			throw notFound(`Message ${messageId} not found in chat ${chatId}`);
		}

		return message;
	}

	private checkAssistant(assistantId: string): void {
		if (assistantId !== this.assistantId()) {
			throw notFound(`Assistant ${assistantId} not found`);
		}
	}
}

export function messageRoutes(service: MessageService): Route[] {
	return [
		{operation: 'createChat', method: 'POST', path: '/space/chat', handle: ({body, caller}) => created(service.createChat(objectBody(body), caller))},
		{operation: 'deleteChat', method: 'DELETE', path: '/space/chat/:chatId', handle: ({params, caller}) => ok(service.deleteChat(params.chatId ?? '', caller))},
		{operation: 'createSpaceMessage', method: 'POST', path: '/space/message', handle: ({body, caller}) => created(service.createSpaceMessage(objectBody(body), caller))},
		{operation: 'getChatMessages', method: 'GET', path: '/space/chat/:chatId/messages', handle: ({params, query, caller}) => ok(service.chatMessages(params.chatId ?? '', caller, query))},
		{operation: 'getLatestMessage', method: 'GET', path: '/space/:chatId/messages/latest', handle: ({params, caller}) => ok(service.latestMessage(params.chatId ?? '', caller))},
		{operation: 'retrieveMessage', method: 'GET', path: '/messages/:messageId', handle: ({params, query, caller}) => ok(service.retrieveMessage(params.messageId ?? '', query, caller))},
		{operation: 'listMessages', method: 'GET', path: '/messages', handle: ({query, caller}) => ok(service.listMessages(query, caller))},
		{operation: 'modifyMessage', method: 'PATCH', path: '/messages/:messageId', handle: ({params, body, caller}) => ok(service.modifyMessage(params.messageId ?? '', objectBody(body), caller))},
	];
}
