import {answerChosenEvent} from '../../receiver/answer/answer.js';
import type {JobOutcome} from '../../receiver/answer/answer-types.js';
import type {AnswerPort} from '../../receiver/answer/answer-port.js';
import type {CompletionMessage} from '../../platform/types.js';
import type {ChatStore, MessageRecord} from './chat-store.js';
import type {PlatformClock} from '../clock.js';
import {defaultModel} from './spaces.js';

export type AssistantJob = {
	chatId: string;
	userMessage: MessageRecord;
	assistantMessage: MessageRecord;
	userId: string;
	companyId: string;
};

/** Earlier messages of the chat given to the model with a follow-up (the newest ones). */
export const historyInContext = 10;

/** Pieces the built-in answer streams in: the text grows over this many reads (or steps of time). */
export const streamPieces = 4;

/** Time after which a streaming answer shows its next piece when nobody reads it. */
export const streamStepMs = 100;

/** Cuts `text` into `pieces` growing prefixes at word boundaries; the last one is the whole text. */
export function streamPrefixes(text: string, pieces = streamPieces): string[] {
	const words = text.split(/(?<=\s)/);
	if (words.length < 2 || pieces < 2) {
		return [text];
	}

	const prefixes: string[] = [];
	for (let piece = 1; piece < pieces; piece++) {
		const prefix = words.slice(0, Math.max(1, Math.floor((words.length * piece) / pieces))).join('').trimEnd();
		if (prefix !== '' && prefix !== prefixes.at(-1) && prefix !== text) {
			prefixes.push(prefix);
		}
	}

	return [...prefixes, text];
}

type Stream = {message: MessageRecord; prefixes: string[]; shown: number};

/**
 * The built-in answer streams: its text grows over a few reads of the message (each read of a
 * streaming message shows the next piece), and at least every `streamStepMs` of the platform's
 * clock, so an answer nobody reads still completes. The last piece stops the stream.
 */
export class ReplyStreams {
	private readonly streams = new Map<string, Stream>();

	constructor(private readonly chats: ChatStore, private readonly clock: PlatformClock, private readonly signal: AbortSignal) {}

	/** Starts streaming `text` into `message`; resolves once the whole text is written. */
	async begin(message: MessageRecord, text: string): Promise<void> {
		const stream: Stream = {message, prefixes: streamPrefixes(text), shown: 0};
		this.streams.set(message.id, stream);
		this.advance(message);
		while (this.streams.has(message.id) && !this.signal.aborted) {
			await this.clock.sleep(streamStepMs, this.signal);
			this.advance(message);
		}
	}

	/** One step of a streaming message (called by every read of it); nothing for other messages. */
	advance(message: MessageRecord): void {
		const stream = this.streams.get(message.id);
		if (stream === undefined) {
			return;
		}

		const next = stream.prefixes[stream.shown] ?? '';
		stream.shown++;
		const last = stream.shown >= stream.prefixes.length;
		this.chats.write(message, next, last);
		if (last) {
			this.streams.delete(message.id);
		}
	}
}

/** The chat's messages before `job`'s question, as the model's earlier turns (answered ones only). */
function earlierTurns(chats: ChatStore, job: AssistantJob): CompletionMessage[] {
	const chat = chats.chatFor(job.chatId, {companyId: job.companyId});
	const messages = chats.messagesOf(chat);
	const asked = messages.findIndex(message => message.id === job.userMessage.id);
	return messages.slice(0, Math.max(0, asked))
		.filter(message => (message.role === 'USER' || message.role === 'ASSISTANT') && (message.text ?? '') !== '' && (message.role === 'USER' || message.stoppedStreamingAt !== null))
		.slice(-historyInContext)
		.map(message => ({role: message.role === 'USER' ? 'user' as const : 'assistant' as const, content: message.text ?? ''}));
}

/**
 * The port of the built-in assistant: as given, except that, as the real assistant does, the
 * chat's earlier messages go into the model's context and the search (so a follow-up such as "and
 * how long does it last?" is answered about the earlier subject), and the final answer streams.
 */
function conversationalPort(port: AnswerPort, job: AssistantJob, parts: {chats: ChatStore; streams: ReplyStreams}): AnswerPort {
	const history = earlierTurns(parts.chats, job);
	const previousQuestion = history.findLast(turn => turn.role === 'user')?.content;
	return {
		...port,
		search: async (body, call) => port.search(previousQuestion === undefined ? body : {...body, searchString: `${body.searchString}\n${previousQuestion}`}, call),
		async chatCompletion(body, call) {
			if (history.length === 0) {
				return port.chatCompletion(body, call);
			}

			const last = body.messages.at(-1);
			const messages = last?.role === 'user' ? [...body.messages.slice(0, -1), ...history, last] : [...body.messages, ...history];
			return port.chatCompletion({...body, messages}, call);
		},
		async modifyMessage(messageId, body, call) {
			const final = body.stoppedStreamingAt !== undefined && messageId === job.assistantMessage.id;
			if (!final) {
				return port.modifyMessage(messageId, body, call);
			}

			call.signal?.throwIfAborted();
			await parts.streams.begin(job.assistantMessage, body.text);
			return job.assistantMessage;
		},
	};
}

/**
 * The built-in assistant: the one implementation of spec §6.2 (the same answer `serve` gives),
 * written through the in-memory answer port. Search the chat, build the context, log the steps,
 * ask the model, write the message and stop the stream; on failure the open logs are FAILED and
 * the apology is written. With `parts`, follow-ups see the chat's earlier messages and the answer
 * streams (see conversationalPort).
 */
export async function builtInAnswer(job: AssistantJob, port: AnswerPort, signal: AbortSignal, parts?: {chats: ChatStore; streams: ReplyStreams}): Promise<JobOutcome> {
	return answerChosenEvent({
		port: parts === undefined ? port : conversationalPort(port, job, parts),
		job: {
			eventId: `local_${job.userMessage.id}`,
			userId: job.userId,
			companyId: job.companyId,
			chatId: job.chatId,
			assistantMessageId: job.assistantMessage.id,
			text: job.userMessage.text ?? '',
		},
		model: defaultModel,
		signal,
	});
}
