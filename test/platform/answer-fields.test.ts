/**
 * The decoding rule of `source/platform/schemas.ts`, checked operation by operation: the fields
 * the program reads are listed here from the answer types the code uses (the compiler checks the
 * lists against those types), an answer carrying only the required ones decodes, an answer missing
 * one of them is refused naming the operation, the field and the request id, and the optional
 * ones may be absent, null or of any other type.
 */
import {describe, expect, it} from 'vitest';
import {PlatformResponseError} from '../../source/platform/errors.js';
import {acceptsAnyBody, answerSchemas, decodeAnswer, readsNothing, type Answer, type AnswerOperation} from '../../source/platform/schemas.js';

/** The named (not index-signature) keys of an object type. */
type KnownKeys<T> = keyof {[K in keyof T as string extends K ? never : number extends K ? never : K]: T[K]};
type RequiredKeys<T> = {[K in KnownKeys<T>]-?: Record<string, never> extends Pick<T, K> ? never : K}[KnownKeys<T>];
type OptionalKeys<T> = Exclude<KnownKeys<T>, RequiredKeys<T>>;

/** Read fields of an object answer: `required` and `optional` must name exactly the answer type's keys. */
type Reads<T> = {required: ReadonlyArray<RequiredKeys<T>>; optional: ReadonlyArray<OptionalKeys<T>>};
/** Compile-time check that a list names every member of a union of keys. */
type Covers<List extends readonly unknown[], Keys> = [Exclude<Keys, List[number]>] extends [never] ? true : false;
function exactly<T, const R extends ReadonlyArray<RequiredKeys<T>>, const O extends ReadonlyArray<OptionalKeys<T>>>(
	reads: {required: R; optional: O},
	// Each list must cover its keys: a call that leaves one out has a missing second argument.
	...complete: Covers<R, RequiredKeys<T>> extends true ? Covers<O, OptionalKeys<T>> extends true ? [] : [missing: 'optional'] : [missing: 'required']
): Reads<T> {
	expect(complete).toEqual([]);
	return reads;
}

type ObjectOperation = Exclude<AnswerOperation, 'searchContent' | 'search' | 'deleteChat' | 'deleteContent' | 'listModels' | 'finalizeContent' | 'updateMessageLog' | 'modifyMessage'>;

/** What each object answer is read for. */
const objectReads: {[O in ObjectOperation]: Reads<Answer<O>>} = {
	rotateKey: exactly<Answer<'rotateKey'>, ['new_key'], ['old_key_expires_at']>({required: ['new_key'], optional: ['old_key_expires_at']}),
	createChat: exactly<Answer<'createChat'>, ['id'], ['title']>({required: ['id'], optional: ['title']}),
	getSpace: exactly<Answer<'getSpace'>, [], ['id', 'name', 'languageModel', 'chatUpload', 'modules']>({required: [], optional: ['id', 'name', 'languageModel', 'chatUpload', 'modules']}),
	createSpaceMessage: exactly<Answer<'createSpaceMessage'>, [], ['id']>({required: [], optional: ['id']}),
	getLatestMessage: exactly<Answer<'getLatestMessage'>, [], ['id', 'role', 'text', 'stoppedStreamingAt']>({required: [], optional: ['id', 'role', 'text', 'stoppedStreamingAt']}),
	getMessage: exactly<Answer<'getMessage'>, [], ['id', 'role', 'text', 'stoppedStreamingAt', 'completedAt']>({required: [], optional: ['id', 'role', 'text', 'stoppedStreamingAt', 'completedAt']}),
	getChatMessages: exactly<Answer<'getChatMessages'>, ['messages'], []>({required: ['messages'], optional: []}),
	listMessages: exactly<Answer<'listMessages'>, [], ['data']>({required: [], optional: ['data']}),
	createContent: exactly<Answer<'createContent'>, ['id'], ['writeUrl', 'readUrl']>({required: ['id'], optional: ['writeUrl', 'readUrl']}),
	chatCompletion: exactly<Answer<'chatCompletion'>, ['choices'], []>({required: ['choices'], optional: []}),
	createMessageLog: exactly<Answer<'createMessageLog'>, ['id'], []>({required: ['id'], optional: []}),
};

/**
 * What the contract promises an answer carries ("What an answer is sure to carry"), copied here
 * independently of the schemas: a required field must be among these, or a platform that keeps
 * its promise could be refused.
 */
const promised: {[O in ObjectOperation]: readonly string[]} = {
	rotateKey: ['new_key', 'old_key_expires_at'],
	createChat: ['id'],
	getSpace: [],
	createSpaceMessage: [],
	getLatestMessage: ['id', 'role', 'text', 'stoppedStreamingAt'],
	getMessage: ['id', 'role', 'text', 'stoppedStreamingAt'],
	getChatMessages: ['messages'],
	listMessages: [],
	createContent: ['id', 'writeUrl'],
	chatCompletion: ['choices'],
	createMessageLog: ['id'],
};

/** A value of the type each required field needs. */
const requiredValues: Record<string, unknown> = {
	new_key: 'sk_new_key_0002',
	id: 'id_1',
	messages: [{}],
	choices: [{message: {content: 'Answer'}}],
};

/** Values an optional field may hold without the answer failing. */
const anyValues: unknown[] = [undefined, null, 42, true, 'text', '', [1, 'two'], {nested: {deep: 1}}];

function context<O extends AnswerOperation>(operation: O) {
	return {operation, method: 'POST', path: '/path', status: 200, requestId: 'req_fields', empty: false};
}

function decodes<O extends AnswerOperation>(operation: O, body: unknown): Answer<O> {
	return decodeAnswer(body, context(operation));
}

function refusal(operation: AnswerOperation, body: unknown): PlatformResponseError {
	try {
		decodeAnswer(body, context(operation));
	} catch (error) {
		expect(error).toBeInstanceOf(PlatformResponseError);
		return error as PlatformResponseError;
	}

	throw new Error(`${operation} accepted ${JSON.stringify(body)}`);
}

function minimal(operation: ObjectOperation): Record<string, unknown> {
	return Object.fromEntries(objectReads[operation].required.map(field => [field, requiredValues[field as string]]));
}

describe('the decoding rule: required exactly what is read', () => {
	it('every operation is listed, either with its read fields or as one whose answer nothing reads', () => {
		const listed = [...Object.keys(objectReads), 'searchContent', 'search'];
		const unread = Object.keys(answerSchemas).filter(operation => readsNothing(operation as AnswerOperation));
		expect(unread.toSorted()).toEqual(['deleteChat', 'deleteContent', 'finalizeContent', 'listModels', 'modifyMessage', 'updateMessageLog']);
		expect([...listed, ...unread].toSorted()).toEqual(Object.keys(answerSchemas).toSorted());
	});

	it('every required field is one the contract promises', () => {
		for (const operation of Object.keys(objectReads) as ObjectOperation[]) {
			for (const field of objectReads[operation].required) {
				expect(promised[operation], `${operation}.${field}`).toContain(field);
			}
		}
	});

	for (const operation of Object.keys(objectReads) as ObjectOperation[]) {
		const {required, optional} = objectReads[operation];
		it(`${operation}: an answer with only ${required.length === 0 ? 'an empty object' : required.join(', ')} decodes`, () => {
			expect(decodes(operation, minimal(operation))).toMatchObject(minimal(operation));
		});

		for (const field of required) {
			it(`${operation}: without ${field} it is refused, naming the operation, the field and the request id`, () => {
				const body = Object.fromEntries(Object.entries(minimal(operation)).filter(([name]) => name !== field));
				const error = refusal(operation, body);
				expect(error.data).toMatchObject({operation, field, requestId: 'req_fields'});
				expect(error.message).toContain(`${field} is missing (request id req_fields)`);
			});
		}

		if (optional.length > 0) {
			it(`${operation}: ${optional.join(', ')} may be absent, null or of any type, and unread fields are kept`, () => {
				for (const value of anyValues) {
					const body = {...minimal(operation), ...Object.fromEntries(optional.map(field => [field, value])), unreadField: value, another: {x: 1}};
					const decoded = decodes(operation, body) as Record<string, unknown>;
					expect(decoded.another).toEqual({x: 1});
					expect(decoded.unreadField).toEqual(value);
				}
			});
		}
	}

	it('searchContent: a list of records whose id and ingestionState are read when usable', () => {
		expect(decodes('searchContent', [])).toEqual([]);
		expect(decodes('searchContent', [{}])).toEqual([{}]);
		expect(decodes('searchContent', [{id: 'cont_1', ingestionState: 'FINISHED', extra: 1}])).toEqual([{id: 'cont_1', ingestionState: 'FINISHED', extra: 1}]);
		expect(decodes('searchContent', [{id: 5, ingestionState: null}])).toEqual([{}]);
		expect(refusal('searchContent', {items: []}).data).toMatchObject({field: '(body)', requestId: 'req_fields'});
	});

	it('search: a list that may be absent; items of any kind', () => {
		expect(decodes('search', null)).toBeNull();
		expect(decodes('search', [])).toEqual([]);
		expect(decodes('search', [{text: 'a'}, 'plain', 3, null, {other: true}])).toEqual([{text: 'a'}, 'plain', 3, null, {other: true}]);
	});

	it('chatCompletion: only choices[0].message.content is read; later choices are never checked', () => {
		expect(decodes('chatCompletion', {choices: [{message: {content: ''}}, 'junk', null]}).choices[0].message.content).toBe('');
		expect(refusal('chatCompletion', {choices: [{message: {content: 3}}]}).data).toMatchObject({field: 'choices[0].message.content'});
		expect(refusal('chatCompletion', {choices: []}).data).toMatchObject({field: 'choices[0]'});
	});

	it('getChatMessages: each message is read for role and text only', () => {
		const decoded = decodes('getChatMessages', {messages: [{}, {role: 'USER', text: 'Hi'}, {role: 1, text: {}}]});
		expect(decoded.messages.map(message => [message.role, message.text])).toEqual([[undefined, undefined], ['USER', 'Hi'], [undefined, undefined]]);
		expect(refusal('getChatMessages', {messages: [null]}).data).toMatchObject({field: 'messages[0]'});
	});

	it('createSpaceMessage is "accepted": any body decodes, its id read when it is an object with one', () => {
		for (const body of [undefined, null, true, 'accepted', [1], {}]) {
			expect(decodes('createSpaceMessage', body)).toEqual({});
		}

		expect(decodes('createSpaceMessage', {id: 'msg_1', chatId: 'chat_1'})).toEqual({id: 'msg_1', chatId: 'chat_1'});
		expect(acceptsAnyBody('createSpaceMessage')).toBe(true);
		expect(acceptsAnyBody('getLatestMessage')).toBe(false);
		expect(acceptsAnyBody('search')).toBe(false);
	});

	it('getSpace shows chatUpload of any scalar type as text', () => {
		expect(decodes('getSpace', {chatUpload: true}).chatUpload).toBe('true');
		expect(decodes('getSpace', {chatUpload: 'ENABLED'}).chatUpload).toBe('ENABLED');
		expect(decodes('getSpace', {chatUpload: {on: true}}).chatUpload).toBeUndefined();
	});

	it('answers nothing reads are accepted whatever they hold, even an empty body', () => {
		for (const operation of ['deleteChat', 'deleteContent', 'finalizeContent', 'listModels', 'modifyMessage', 'updateMessageLog'] as const) {
			for (const body of [null, {}, [], 'x', 1, {id: 5}]) {
				expect(() => decodes(operation, body)).not.toThrow();
			}
		}
	});
});
