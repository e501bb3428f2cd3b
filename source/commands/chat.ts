/**
 * `platform-tui chat <chat-id> [prompt]`: follow-up questions in an existing chat. With a prompt it
 * asks once and prints the reply as it streams (NDJSON with --json); without one, in a terminal,
 * it opens a prompt where each question is sent in the chat. Exit codes: 0 done (or the prompt
 * ended with an empty line or Ctrl+D), 1 a failure, 130 Ctrl+C (143 on SIGTERM).
 */
import {isAbortError} from '../errors.js';
import {askInChat, checkChat, type ConversationOptions} from '../workflow/conversation.js';
import type {Deps} from '../cli/deps.js';
import {configuredTarget} from './platform-target.js';
import type {Command} from '../cli/types.js';
import {readFlags} from '../cli/flag-values.js';
import {RunStoppedError} from '../cli/stopped.js';
import {UsageError} from '../cli/validators.js';
import {replyFlags} from './reply-flags.js';
import {withReactBuild} from '../ui/react-build.js';

export const chatUsage = 'Usage: platform-tui chat <chat-id> [prompt]';

export type ChatCommandOptions = {
	chatId: string;
	prompt?: string;
	pollIntervalMs: number;
	replyTimeoutMs: number;
};

/** The interactive prompt over `conversation`, as `chat` and `upload --interactive` open it. */
export async function openChatPrompt(deps: Deps, conversation: ConversationOptions, banner?: string): Promise<number> {
	const [{runChatSession}, {describeError, joinText}] = await Promise.all([withReactBuild(async () => import('../ui/chat/session.js')), import('../cli/error-message.js')]);
	return runChatSession(deps.context, {
		chatId: conversation.chatId,
		ask: async (question, signal, onText) => askInChat(conversation, question, AbortSignal.any([signal, deps.context.signal]), event => {
			if (event.type === 'reply-progress') {
				onText(event.text);
			}
		}),
		describe: error => joinText(describeError(error, {offersLocal: false})),
		...(banner === undefined ? {} : {banner}),
	});
}

async function askOnce(deps: Deps, conversation: ConversationOptions, prompt: string): Promise<number> {
	const {context, output} = deps;
	const {createReplyStream} = await import('../ui/chat/plain.js');
	// Without --json the reply is printed as it streams; with it, each event is a record.
	const reply = createReplyStream();
	try {
		const answer = await askInChat(conversation, prompt, context.signal, event => {
			output.print(event, event.type === 'reply-progress' ? () => reply.next(event.text) : undefined);
		});
		output.print({type: 'reply', chatId: conversation.chatId, reply: answer.text}, () => `${reply.next(answer.text)}\n`);
		return 0;
	} catch (error) {
		if (!isAbortError(error) && !context.signal.aborted) {
			throw error;
		}

		const {chatId} = conversation;
		output.print({type: 'cancelled', chatId}, reply.shown === '' ? undefined : '\n');
		// The dispatcher ends the run: the `error` line names the chat, stderr gets the sentence.
		throw new RunStoppedError({
			sentence: `Stopped waiting; the reply keeps arriving in chat ${chatId} on the platform.`,
			chatId,
			next: `The reply keeps arriving in chat ${chatId}; ask another question there with: platform-tui chat ${chatId} "…"`,
		});
	}
}

const command: Command<ChatCommandOptions> = {
	usage: 'platform-tui chat <chat-id> [prompt] [options]',
	description: 'Ask a question in an existing space chat and print the reply as it streams; without a prompt, open a prompt for one question after another',
	flags: {
		...replyFlags,
	},
	complete: 'chat-id',
	examples: [
		'platform-tui chat chat_123 "And how long does it last?"',
		'platform-tui chat chat_123 "List the open risks" --json',
		'platform-tui chat chat_123',
	],
	parse(input) {
		if (input.argv.length < 1) {
			throw new UsageError('argument-missing', chatUsage);
		}

		if (input.argv.length > 2) {
			throw new UsageError('too-many-arguments', `${chatUsage}\n(got ${input.argv.length} arguments; quote the prompt if it has spaces)`);
		}

		const [chatId = '', prompt] = input.argv;
		if (chatId.trim() === '') {
			throw new UsageError('argument-missing', `The chat id is empty. ${chatUsage}`);
		}

		if (prompt?.trim() === '') {
			throw new UsageError('prompt-empty', 'The prompt is empty; pass a question, or leave it out to open the prompt.');
		}

		const {pollInterval, replyTimeout} = readFlags(replyFlags, input);
		return {
			chatId: chatId.trim(),
			...(prompt === undefined ? {} : {prompt}),
			pollIntervalMs: pollInterval,
			replyTimeoutMs: replyTimeout,
		};
	},
	async run(options, deps) {
		const {context} = deps;
		// The run is about this chat from the start: a refusal or a failure names it on the last --json line too.
		deps.output.touched({chatIds: [options.chatId]});
		if (options.prompt === undefined && !context.interactive) {
			throw new UsageError('not-interactive', `Without a prompt, chat opens a prompt, which needs a terminal; pass the question: platform-tui chat ${options.chatId} "…"`);
		}

		const target = configuredTarget(deps, undefined, 'platform-tui chat');
		try {
			const messages = await checkChat(target.client, options.chatId, context.signal);
			const conversation: ConversationOptions = {client: target.client, assistantId: target.assistantId, chatId: options.chatId, pollIntervalMs: options.pollIntervalMs, replyTimeoutMs: options.replyTimeoutMs};
			if (options.prompt !== undefined) {
				return await askOnce(deps, conversation, options.prompt);
			}

			return await openChatPrompt(deps, conversation, `Chat ${options.chatId} · ${messages} ${messages === 1 ? 'message' : 'messages'} so far`);
		} finally {
			await target.close();
		}
	},
};

export default command;
