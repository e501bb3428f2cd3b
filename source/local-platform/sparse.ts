/**
 * `--answers sparse`: every API answer carries only the fields the platform's contract promises
 * (a chat's `id`; a content's `id` and `writeUrl`, and `id` and `ingestionState` in a search; a
 * message log's `id`; a message's `id`, `role`, `text` and `stoppedStreamingAt`; the history's
 * `role` and `text`; `choices[0].message.content`; a search result's `text`; a rotation's two
 * fields; the space's four shown fields) and nothing else. An update or modify answers with the
 * `id` only. A client that needs more than this does not work against the real service.
 */
import {isRecord} from '../format/value.js';
import type {ApiOperation} from './operations.js';

export const answerModes = ['full', 'sparse'] as const;
export type AnswerMode = typeof answerModes[number];

/** The named fields of a record that it has, in that order. */
function only(value: unknown, keys: readonly string[]): unknown {
	if (!isRecord(value)) {
		return value;
	}

	const out: Record<string, unknown> = {};
	for (const key of keys) {
		if (key in value) {
			out[key] = value[key];
		}
	}

	return out;
}

function each(value: unknown, keys: readonly string[]): unknown {
	return Array.isArray(value) ? value.map(item => only(item, keys)) : value;
}

const messageFields = ['id', 'role', 'text', 'stoppedStreamingAt'] as const;

/** What each operation's answer keeps. */
const views: Record<ApiOperation, (body: unknown) => unknown> = {
	rotateKey: body => only(body, ['new_key', 'old_key_expires_at']),
	getSpace(body) {
		const space = only(body, ['name', 'languageModel', 'chatUpload', 'modules']);
		return isRecord(space) && Array.isArray(space.modules) ? {...space, modules: each(space.modules, ['name'])} : space;
	},
	createChat: body => only(body, ['id']),
	deleteChat: body => only(body, ['id']),
	createSpaceMessage: body => only(body, messageFields),
	getChatMessages(body) {
		const history = only(body, ['messages']);
		return isRecord(history) ? {messages: each(history.messages, ['role', 'text'])} : history;
	},
	getLatestMessage: body => only(body, messageFields),
	retrieveMessage: body => only(body, messageFields),
	listMessages(body) {
		const list = only(body, ['data']);
		return isRecord(list) ? {data: each(list.data, messageFields)} : list;
	},
	modifyMessage: body => only(body, ['id']),
	listModels: body => only(body, ['models']),
	createMessageLog: body => only(body, ['id']),
	updateMessageLog: body => only(body, ['id']),
	upsertContent: body => only(body, ['id', 'writeUrl']),
	searchContent: body => each(body, ['id', 'ingestionState']),
	deleteContent: body => only(body, ['id']),
	search: body => each(body, ['text']),
	chatCompletion(body) {
		const completion = only(body, ['choices']);
		if (!isRecord(completion) || !Array.isArray(completion.choices)) {
			return completion;
		}

		return {choices: completion.choices.map(choice => {
			const kept = only(choice, ['message']);
			return isRecord(kept) ? {message: only(kept.message, ['content'])} : kept;
		})};
	},
};

/** The answer body as the mode serves it. */
export function answerView(mode: AnswerMode, operation: ApiOperation, body: unknown): unknown {
	return mode === 'full' ? body : views[operation](body);
}
