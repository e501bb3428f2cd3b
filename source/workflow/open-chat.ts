/**
 * The chat an upload goes into: created (or, with a chat id, checked) while the space loads beside
 * it, the space shown first; and the chat's history read at the end.
 */
import {isCoreError} from '../core-error.js';
import {errorMessage} from '../format/value.js';
import type {Space} from '../platform/types.js';
import {HistoryFetchError} from './errors.js';
import type {ChatMessageSummary, SpaceSummary, UploadEventListener} from './events.js';
import {checkChat} from './sync.js';
import type {UploadClient} from './types.js';

/** Where the chat is: the client, the space, and the chat to upload into (a new one when absent). */
export type ChatTarget = {client: UploadClient; assistantId: string; chatId?: string};

/** The space as the upload shows it. */
function summarizeSpace(space: Space): SpaceSummary {
	// The answer schema (platform/schemas.ts) has checked each field's type; absent ones get a stand-in.
	const summary: SpaceSummary = {
		name: space.name || '(unnamed)',
		languageModel: space.languageModel ?? '(unknown)',
		chatUpload: space.chatUpload ?? '(unknown)',
		modules: (space.modules ?? []).map(module => module.name),
	};
	if (space.id !== undefined) {
		summary.id = space.id;
	}

	return summary;
}

/** The chat the files go into, created (or, with `chatId`, checked), and the space beside it (an Error when it could not load). */
export async function openChat(options: ChatTarget, title: string, signal: AbortSignal, emit: UploadEventListener): Promise<{chatId: string; space: SpaceSummary | Error}> {
	const {client, assistantId} = options;
	const existing = options.chatId;
	// The space is only shown, so it loads beside the chat creation instead of before it (one round
	// trip less before the first upload); its event still comes first. It gets one attempt: an
	// unreachable platform then shows one retry sequence (the chat's) and fails once.
	const chatStarted = performance.now();
	const loadingSpace = client.getSpace(assistantId, {signal, retries: 0}).then(summarizeSpace, (error: unknown) => error instanceof Error ? error : new Error(String(error)));
	const opening = existing === undefined ? client.createChat({title, assistantId}, {signal}) : checkChat(client, existing, signal);
	// Rejections are read below; until then they must not count as unhandled.
	opening.catch(() => undefined);
	const space = await loadingSpace;
	if (space instanceof Error) {
		signal.throwIfAborted();
		// A refused key refuses every call after this one: the run stops here with the key's advice.
		if (isCoreError(space) && space.code === 'platform-unauthorized') {
			throw space;
		}

		emit({type: 'space-warning', message: `Could not load space ${assistantId}: ${errorMessage(space).replace(/\.$/, '')}; going on without it`});
	} else {
		emit({type: 'space-loaded', space});
	}

	let chatId: string;
	if (existing === undefined) {
		emit({type: 'chat-creating', title});
		const chat = await (opening as ReturnType<UploadClient['createChat']>);
		chatId = chat.id;
		emit({type: 'chat-created', chatId, title: chat.title ?? title, durationMs: Math.round(performance.now() - chatStarted)});
	} else {
		const messages = await (opening as Promise<number>);
		chatId = existing;
		emit({type: 'chat-checked', chatId, messages, durationMs: Math.round(performance.now() - chatStarted)});
	}

	return {chatId, space};
}

/** The chat's messages as the history shows them; a failure to read them is a HistoryFetchError. */
export async function chatHistory(client: UploadClient, chatId: string, signal: AbortSignal): Promise<ChatMessageSummary[]> {
	try {
		const {messages} = await client.getChatMessages(chatId, {signal});
		return messages.map(message => ({role: message.role ?? '(no role)', text: message.text ?? ''}));
	} catch (error) {
		signal.throwIfAborted();
		throw new HistoryFetchError(chatId, error);
	}
}
