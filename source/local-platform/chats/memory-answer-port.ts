import type {AnswerPort, PortCall} from '../../receiver/answer/answer-port.js';
import type {Completions} from './completions.js';
import type {Caller} from '../context.js';
import type {MessageLogStore} from './message-logs.js';
import {messageView, type ChatStore} from './chat-store.js';
import type {PlatformClock} from '../clock.js';
import {modifyMessage} from './messages.js';
import type {SearchService} from '../content/search.js';

export type AnswerPortParts = {
	chats: ChatStore;
	clock: PlatformClock;
	logs: MessageLogStore;
	search: SearchService;
	completions: Completions;
};

/** Runs `work` so that what it throws becomes a rejection, as a call over HTTP would fail. */
async function settle<T>(work: () => T | Promise<T>): Promise<T> {
	return Promise.resolve().then(work);
}

function callerOf(call: PortCall): Caller {
	call.signal?.throwIfAborted();
	return {userId: call.userId, companyId: call.companyId, apiKey: ''};
}

/**
 * The answer port (spec §6.2) in memory: the same resource functions the HTTP routes call, with
 * the same checks and errors (an HttpError with the status the route would answer), no HTTP.
 * Completions made through it are recorded with source `assistant`.
 */
export function memoryAnswerPort(parts: AnswerPortParts): AnswerPort {
	return {
		createMessageLog: async (body, call) => settle(() => parts.logs.create({...body}, callerOf(call))),
		updateMessageLog: async (messageLogId, body, call) => settle(() => parts.logs.update(messageLogId, {...body}, callerOf(call))),
		search: async (body, call) => settle(() => parts.search.search({...body}, callerOf(call))),
		chatCompletion: async (body, call) => settle(async () => {
			callerOf(call);
			const {choices: [first, ...others], ...rest} = await parts.completions.handle({...body}, 'assistant');
			if (first === undefined) {
				throw new Error('the local model returned no choice');
			}

			return {...rest, choices: [first, ...others]};
		}),
		modifyMessage: async (messageId, body, call) => settle(() => modifyMessage(parts.chats, parts.clock, messageId, {...body}, callerOf(call))),
		getMessage: async (messageId, _chatId, call) => settle(() => messageView(parts.chats.messageFor(messageId, callerOf(call)))),
	};
}
