import type {Chat, Message, MessageRole} from '../records.js';
import {isoNow} from '../clock.js';
import {quotaExceeded, type Caller, type ServiceContext} from '../context.js';
import {notFound} from '../http/http.js';
import {newId} from '../ids.js';
import {pick} from './view.js';

export type ChatRecord = {
	id: string;
	title: string;
	assistantId: string;
	companyId: string;
	userId: string;
	createdAt: string;
	updatedAt: string;
	messageIds: string[];
};

export type MessageRecord = {
	id: string;
	chatId: string;
	role: MessageRole;
	text: string | null;
	createdAt: string;
	updatedAt: string;
	startedStreamingAt: string | null;
	stoppedStreamingAt: string | null;
	completedAt: string | null;
	userId: string;
	companyId: string;
	logIds: string[];
	/** What the platform noted while answering (the SDK reads it back); null until then. */
	debugInfo: Record<string, unknown> | null;
};

/** A chat as the API answers it (the wire type of the client, plus the fields the platform adds). */
export type ChatView = Chat & {assistantId: string; updatedAt: string};

/** A message as `GET /messages/{id}` answers it: the wire message with its `debugInfo`. */
export type MessageWithDebugInfo = Message & {debugInfo: Record<string, unknown> | null};

/** The chats and their messages, scoped by company. */
export class ChatStore {
	private readonly chats = new Map<string, ChatRecord>();
	private readonly messages = new Map<string, MessageRecord>();

	constructor(private readonly context: ServiceContext) {}

	chatFor(chatId: string, caller: Pick<Caller, 'companyId'>): ChatRecord {
		const chat = this.chats.get(chatId);
		if (chat?.companyId !== caller.companyId) {
			throw notFound(`Chat ${chatId} not found`);
		}

		return chat;
	}

	messageFor(messageId: string, caller: Pick<Caller, 'companyId'>): MessageRecord {
		const message = this.messages.get(messageId);
		if (message?.companyId !== caller.companyId) {
			throw notFound(`Message ${messageId} not found`);
		}

		return message;
	}

	/** A stored message whatever its company (inspection), or undefined. */
	peek(messageId: string): MessageRecord | undefined {
		return this.messages.get(messageId);
	}

	createChat(title: string, assistantId: string, caller: Caller): ChatRecord {
		const {maxChats} = this.context.limits;
		if (this.chats.size >= maxChats) {
			throw quotaExceeded('chats', maxChats);
		}

		const createdAt = isoNow(this.context.clock);
		const chat: ChatRecord = {
			id: newId('chat'),
			title,
			assistantId,
			companyId: caller.companyId,
			userId: caller.userId,
			createdAt,
			updatedAt: createdAt,
			messageIds: [],
		};
		this.chats.set(chat.id, chat);
		return chat;
	}

	/** Removes the chat and its messages; returns the ids of the messages removed. */
	deleteChat(chat: ChatRecord): string[] {
		this.chats.delete(chat.id);
		for (const id of chat.messageIds) {
			this.messages.delete(id);
		}

		return chat.messageIds;
	}

	/** The chat's messages that still exist, oldest first. */
	messagesOf(chat: ChatRecord): MessageRecord[] {
		return chat.messageIds
			.map(id => this.messages.get(id))
			.filter((message): message is MessageRecord => message !== undefined);
	}

	addMessage(chat: ChatRecord, fields: Pick<MessageRecord, 'role' | 'text' | 'startedStreamingAt' | 'stoppedStreamingAt' | 'completedAt' | 'userId'>): MessageRecord {
		const createdAt = isoNow(this.context.clock);
		const message: MessageRecord = {
			id: newId('msg'),
			chatId: chat.id,
			createdAt,
			updatedAt: createdAt,
			companyId: chat.companyId,
			logIds: [],
			debugInfo: null,
			...fields,
		};
		this.messages.set(message.id, message);
		chat.messageIds.push(message.id);
		chat.updatedAt = createdAt;
		return message;
	}

	/** Sets the text (and, when `stop`, stops the stream and completes the message) now. */
	write(message: MessageRecord, text: string, stop: boolean): void {
		const at = isoNow(this.context.clock);
		message.text = text;
		message.updatedAt = at;
		if (stop) {
			message.stoppedStreamingAt = at;
			message.completedAt = at;
		}
	}
}

export function chatView(chat: ChatRecord): ChatView {
	return pick(chat, ['id', 'title', 'assistantId', 'createdAt', 'updatedAt']);
}

const messageFields = ['id', 'chatId', 'role', 'text', 'createdAt', 'updatedAt', 'startedStreamingAt', 'stoppedStreamingAt', 'completedAt'] as const;

export function messageView(message: MessageRecord): Message {
	return pick(message, messageFields);
}

export function messageWithDebugInfo(message: MessageRecord): MessageWithDebugInfo {
	return {...messageView(message), debugInfo: message.debugInfo};
}
