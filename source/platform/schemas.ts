/**
 * One schema per platform answer (../shared/platform-api.md). Lenient about extra fields (they are
 * kept), strict about the fields this program reads: a missing or mistyped one is a
 * `PlatformResponseError` naming the operation, the field and the request id, raised before any
 * caller can act on a half answer. Each schema is checked against its wire type in `types.ts`.
 */
import {z} from 'zod';
import {describeValue} from '../format/describe.js';
import {isRecord} from '../format/index.js';
import {PlatformResponseError} from './errors.js';
import type {OperationName} from './retry.js';
import type {
	Chat,
	ChatCompletion,
	ChatMessages,
	Content,
	DeletedChat,
	KeyRotation,
	Message,
	MessageList,
	MessageLog,
	SearchResult,
	Space,
} from './types.js';

const id = z.string().min(1);
const text = z.string().optional();
const nullableText = z.string().nullish();

const chat = z.looseObject({id, title: text, createdAt: text}) satisfies z.ZodType<Chat>;

const space = z.looseObject({
	id: text,
	name: text,
	languageModel: text,
	chatUpload: text,
	modules: z.array(z.looseObject({id: text, name: z.string(), isExternal: z.boolean().optional()})).optional(),
}) satisfies z.ZodType<Space>;

const message = z.looseObject({
	id,
	chatId: z.string(),
	role: text,
	text: nullableText,
	createdAt: text,
	updatedAt: text,
	startedStreamingAt: nullableText,
	stoppedStreamingAt: nullableText,
	completedAt: nullableText,
}) satisfies z.ZodType<Message>;

const content = z.looseObject({
	id,
	key: text,
	title: text,
	mimeType: text,
	writeUrl: nullableText,
	readUrl: nullableText,
	ingestionState: text,
}) satisfies z.ZodType<Content>;

const messageLog = z.looseObject({
	id,
	messageId: z.string(),
	text: z.string(),
	status: z.enum(['RUNNING', 'COMPLETED', 'FAILED']),
	order: z.number(),
	createdAt: text,
	updatedAt: text,
}) satisfies z.ZodType<MessageLog>;

const searchResult = z.looseObject({
	id: text,
	chunkId: text,
	text,
	key: text,
	title: text,
	url: nullableText,
}) satisfies z.ZodType<SearchResult>;

const completion = z.looseObject({
	choices: z.array(z.looseObject({
		index: z.number().optional(),
		message: z.looseObject({role: text, content: z.string()}),
		finish_reason: nullableText,
	})).min(1),
}) satisfies z.ZodType<ChatCompletion>;

/**
 * The rotation answer is checked field by field in `keys/rotate.ts`: a key the platform issued must
 * be stored even when its expiry is unreadable (losing it would lock the user out after the
 * overlap), and the key-format rules live there. Here it only has to be JSON.
 */
const keyRotation = z.custom<KeyRotation>(() => true);

/** The schema of each operation's answer. */
export const answerSchemas = {
	rotateKey: keyRotation,
	createChat: chat,
	getSpace: space,
	createSpaceMessage: message,
	getLatestMessage: message,
	getChatMessages: z.looseObject({messages: z.array(message), totalCount: z.number().optional()}) satisfies z.ZodType<ChatMessages>,
	getMessage: message,
	listMessages: z.looseObject({object: z.string().optional(), data: z.array(message)}) satisfies z.ZodType<MessageList>,
	deleteChat: z.looseObject({id: z.string().optional()}) satisfies z.ZodType<DeletedChat>,
	createContent: content,
	finalizeContent: content,
	searchContent: z.array(content),
	// Spec §2.4: the result list may be absent (null or an empty body).
	search: z.array(searchResult).nullable(),
	chatCompletion: completion,
	createMessageLog: messageLog,
	updateMessageLog: messageLog,
	modifyMessage: message,
} as const satisfies Record<Exclude<OperationName, 'putBlob'>, z.ZodType>;

export type AnswerOperation = keyof typeof answerSchemas;
export type Answer<O extends AnswerOperation> = z.output<typeof answerSchemas[O]>;

/** `choices[0].message.content`, or `(body)` for the answer as a whole. */
export function fieldName(path: ReadonlyArray<PropertyKey>): string {
	let out = '';
	for (const part of path) {
		out += typeof part === 'number' ? `[${part}]` : `${out === '' ? '' : '.'}${String(part)}`;
	}

	return out === '' ? '(body)' : out;
}

function valueAt(value: unknown, path: ReadonlyArray<PropertyKey>): unknown {
	let current = value;
	for (const part of path) {
		if (Array.isArray(current) && typeof part === 'number') {
			current = current[part] as unknown;
		} else if (isRecord(current) && typeof part === 'string') {
			current = current[part];
		} else {
			return undefined;
		}
	}

	return current;
}

export type AnswerContext = {
	operation: AnswerOperation;
	method: string;
	path: string;
	status: number;
	requestId: string | undefined;
	/** The body was empty (no bytes), not a JSON `null`. */
	empty: boolean;
};

/** The answer in its documented shape, or a `PlatformResponseError` naming the first wrong field. */
export function decodeAnswer<O extends AnswerOperation>(body: unknown, context: AnswerContext & {operation: O}): Answer<O> {
	// The union of all schemas is not callable as one; each member parses `unknown` the same way.
	const schema = answerSchemas[context.operation] as unknown as z.ZodType<Answer<O>>;
	const result = schema.safeParse(body);
	if (result.success) {
		return result.data;
	}

	const issue = result.error.issues[0];
	const path = issue?.path ?? [];
	const field = fieldName(path);
	const found = valueAt(body, path);
	const what = path.length === 0 ? 'the body' : field;
	const detail = path.length === 0 && context.empty ? 'the body is empty' : `${what} is ${describeValue(found)}${issue ? expectation(issue, found) : ''}`;
	return throwMalformed(context, field, detail);
}

/** `, not a string`, `, not one of RUNNING, COMPLETED, FAILED`, or nothing when `missing` says it all. */
function expectation(issue: z.core.$ZodIssue, found: unknown): string {
	if (found === undefined) {
		return '';
	}

	if (issue.code === 'invalid_type') {
		const names: Record<string, string> = {array: 'a list', object: 'an object', string: 'a string', number: 'a number', boolean: 'a boolean'};
		return `, not ${names[issue.expected] ?? issue.expected}`;
	}

	if (issue.code === 'invalid_value') {
		return `, not one of ${issue.values.map(String).join(', ')}`;
	}

	if (issue.code === 'too_small') {
		// `an empty list` or `an empty string` already says it.
		return '';
	}

	return `: ${issue.message}`;
}

function throwMalformed(context: AnswerContext, field: string, detail: string): never {
	throw new PlatformResponseError({
		operation: context.operation,
		method: context.method,
		path: context.path,
		field,
		detail,
		requestId: context.requestId,
		status: context.status,
	});
}

/** The body was not JSON at all. */
export function notJson(context: AnswerContext): never {
	return throwMalformed(context, '(body)', 'the body is not JSON');
}
