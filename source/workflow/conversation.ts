/**
 * Follow-up questions in an existing chat: one question sent and its reply awaited as it streams
 * (spec §4.3 step 4, the same rule as the upload's prompt), for `chat` and `upload --interactive`.
 */
import type {PlatformClient} from '../platform/client.js';
import {PlatformApiError} from '../platform/errors.js';
import {WorkflowError} from './errors.js';
import type {UploadEventListener} from './events.js';
import {askAndWait} from './reply.js';

export type ConversationClient = Pick<PlatformClient, 'createSpaceMessage' | 'getLatestMessage'>;

export type ConversationOptions = {
	client: ConversationClient;
	assistantId: string;
	chatId: string;
	pollIntervalMs: number;
	replyTimeoutMs: number;
};

/** `--chat` names a chat the platform does not know (404); nothing was uploaded. */
export class UnknownChatError extends WorkflowError<'unknown-chat', {chatId: string}> {
	constructor(readonly chatId: string, cause: unknown) {
		super('unknown-chat', {chatId}, `Chat ${chatId} was not found on the platform; nothing was uploaded`, {cause});
	}
}

/** Reads the chat's messages once: the chat exists (else UnknownChatError); returns how many messages it holds. */
export async function checkChat(client: Pick<PlatformClient, 'getChatMessages'>, chatId: string, signal: AbortSignal): Promise<number> {
	try {
		const {messages} = await client.getChatMessages(chatId, {signal});
		return messages.length;
	} catch (error) {
		if (error instanceof PlatformApiError && error.status === 404) {
			throw new UnknownChatError(chatId, error);
		}

		throw error;
	}
}

/** Asks `question` in the chat; `emit` gets message-sent, reply-progress and reply-complete. Rejects on abort or timeout. */
export async function askInChat(options: ConversationOptions, question: string, signal: AbortSignal, emit: UploadEventListener): Promise<{text: string; elapsedMs: number}> {
	let elapsedMs = 0;
	const text = await askAndWait({
		client: options.client,
		assistantId: options.assistantId,
		chatId: options.chatId,
		prompt: question,
		pollIntervalMs: options.pollIntervalMs,
		firstPollMs: 0,
		timeoutMs: options.replyTimeoutMs,
		signal,
		emit(event) {
			if (event.type === 'reply-complete') {
				elapsedMs = event.elapsedMs;
			}

			emit(event);
		},
	});
	return {text, elapsedMs};
}
