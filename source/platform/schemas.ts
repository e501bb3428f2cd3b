/**
 * One schema per platform answer.
 *
 * THE RULE: an answer is decoded for what this program reads from it, and only that.
 * - A field is **required** when some code path cannot go on without it: it must be present with
 *   the type that code needs, or the answer is refused with a `PlatformResponseError` naming the
 *   operation, the field and the request id, before any caller can act on it.
 * - A field that is read but can be done without (shown, or used when present) is **optional**:
 *   absent, null or of another type, it reads as absent. It never makes an answer fail.
 * - Every other field is not checked at all and is kept as it came.
 * - An operation whose answer nothing reads accepts any body, even an empty one or one that is
 *   not JSON; so does one whose every read field is optional and whose body may be anything.
 *
 * The platform promises little more than this (a chat's `id`, a content's `id` and `writeUrl`, a
 * message log's `id`, a message's `id`, `role`, `text` and `stoppedStreamingAt`, …), and an update
 * may echo only what was sent; a field required here that the contract does not promise is a bug.
 * The answer types below are what callers see; `test/platform/answer-fields.test.ts` lists each
 * operation's fields and checks that an answer carrying only the required ones decodes.
 */
import * as z from 'zod';
import {describeValue} from '../format/describe.js';
import {isRecord} from '../format/value.js';
import {PlatformResponseError} from './errors.js';
import type {OperationName} from './retry.js';

const id = z.string().min(1);

/** An optional string: null, or any other value that is not a string, reads as absent. */
const optionalString = z.unknown().transform(value => typeof value === 'string' ? value : undefined).optional();
/** An optional value read only for being there (null and absent read as absent). */
const optionalValue = z.unknown().optional();
/** An optional value shown as text: a string, or a number or boolean in its string form. */
const optionalText = z.unknown().transform(value => typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined).optional();
/** An optional list: anything that is not a list reads as absent. */
const optionalList = z.unknown().transform(value => Array.isArray(value) ? value as unknown[] : undefined).optional();
/** Any body at all: nothing in it is read. */
const unread = z.unknown();

/** `modules[].name` where it is a string; a module without a usable name is left out. */
const moduleNames = z.unknown().transform(value => Array.isArray(value)
	? value.flatMap(item => isRecord(item) && typeof item.name === 'string' ? [{name: item.name}] : [])
	: undefined).optional();

/** A message as the reply poll and the history read it. */
const message = z.looseObject({
	id: optionalString,
	role: optionalString,
	text: optionalString,
	/** Null (or absent) while the assistant streams; any other value once it stopped. */
	stoppedStreamingAt: optionalValue,
});

/** The schema of each operation's answer. */
export const answerSchemas = {
	/**
	 * `new_key` is required; `old_key_expires_at` is read by `keys/rotate.ts`, which keeps a key
	 * whose expiry cannot be read (losing it would lock the user out after the overlap).
	 */
	rotateKey: z.looseObject({new_key: z.string(), old_key_expires_at: optionalValue}),
	createChat: z.looseObject({id, title: optionalString}),
	/** Shown only (upload, init): nothing is required. */
	getSpace: z.looseObject({id: optionalString, name: optionalString, languageModel: optionalString, chatUpload: optionalText, modules: moduleNames}),
	/**
	 * "Accepted": any answer will do. Its `id`, when it has one, tells the user's own message apart
	 * from the reply; a body that is not an object reads as `{}`.
	 */
	createSpaceMessage: z.unknown().transform(value => (isRecord(value) ? value : {})).pipe(z.looseObject({id: optionalString})),
	getLatestMessage: message,
	getChatMessages: z.looseObject({messages: z.array(message)}),
	/** A resumed answer reads the message back: its `text` and `completedAt` say whether it is already written. */
	getMessage: message.extend({completedAt: optionalString}),
	listMessages: z.looseObject({data: optionalList}),
	/** serve's key probe: any 2xx will do, nothing in it is read. */
	listModels: unread,
	deleteChat: unread,
	/** `writeUrl` may be empty or absent: the workflow stops that file with its own error. */
	createContent: z.looseObject({id, writeUrl: optionalString, readUrl: optionalString}),
	finalizeContent: unread,
	deleteContent: unread,
	searchContent: z.array(z.looseObject({id: optionalString, ingestionState: optionalString})),
	/** A list that may be empty or absent (null or an empty body); items without `text` are used by their string form. */
	search: z.array(z.unknown()).nullish(),
	/** Only `choices[0].message.content` is read. */
	chatCompletion: z.looseObject({choices: z.tuple([z.looseObject({message: z.looseObject({content: z.string()})})], z.unknown())}),
	createMessageLog: z.looseObject({id}),
	updateMessageLog: unread,
	modifyMessage: unread,
} as const satisfies Record<Exclude<OperationName, 'putBlob'>, z.ZodType>;

export type AnswerOperation = keyof typeof answerSchemas;
export type Answer<O extends AnswerOperation> = z.output<typeof answerSchemas[O]>;

/** Operations whose answer nothing reads. */
export function readsNothing(operation: AnswerOperation): boolean {
	return answerSchemas[operation] === unread;
}

/** A value no JSON body can hold: a schema that accepts it accepts anything. */
const notAJsonValue = Symbol('not a JSON value');

/** Operations that take any body at all, even one that is not JSON (nothing in it is required). */
export function acceptsAnyBody(operation: AnswerOperation): boolean {
	return answerSchemas[operation].safeParse(notAJsonValue).success;
}

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

/** The answer with its read fields decoded, or a `PlatformResponseError` naming the first wrong required field. */
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
		const names: Record<string, string> = {array: 'a list', object: 'an object', string: 'a string', number: 'a number', boolean: 'a boolean', tuple: 'a list'};
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
