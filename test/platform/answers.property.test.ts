/**
 * Property-based answers: fast-check generates platform answers for every operation of the
 * upload workflow and of the chosen-module job (required fields present; every other field absent,
 * null, of another type, or extra), a recording server serves them, and the real client decodes
 * them. An answer the rule accepts never ends in an error or the apology; an answer missing a
 * required field ends in the error naming its operation and field, and no later step is taken.
 * Runs are bounded and seeded (`PLATFORM_TUI_FC_SEED` replays a failure; fast-check prints it).
 */
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import fc from 'fast-check';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {PlatformClient} from '../../source/platform/client.js';
import {PlatformResponseError} from '../../source/platform/errors.js';
import {answerChosenEvent} from '../../source/receiver/answer/answer.js';
import {apologyText} from '../../source/receiver/answer/answer-text.js';
import {platformPort} from '../../source/receiver/answer/platform-port.js';
import {runUpload} from '../../source/workflow/run-upload.js';
import {startRecordingServer, type RecordedRequest, type RecordingServer} from '../support/recording-server.js';

const seed = Number(process.env.PLATFORM_TUI_FC_SEED ?? 20_261_123);
const settings = {seed, numRuns: 60, endOnFailure: true} as const;
/**
 * Each property is bounded by its run count, not by time: 60 runs of a few loopback calls take
 * about a second on a quiet machine, so the hang limit is set far past what a loaded one needs.
 */
const hangLimit = {timeout: 180_000};
/** A served answer: a JSON value, or no body at all. */
const emptyBody = Symbol('empty body');
type Served = unknown;

// ---- generators ----------------------------------------------------------------------------

/** Any value an unread or optional field may hold ("absent" is the absence of the key). */
const junk = fc.oneof(fc.constant(null), fc.integer(), fc.boolean(), fc.string({maxLength: 6}), fc.array(fc.integer(), {maxLength: 2}), fc.constant({nested: {x: 1}}));
const absent = Symbol('absent');
/** An optional field: absent, null/junk, or a valid value. */
const optional = <T>(valid: fc.Arbitrary<T>) => fc.oneof(fc.constant(absent), junk, valid);
/** Extra fields no code reads. */
const extras = fc.dictionary(fc.constantFrom('extra', 'createdAt', 'updatedAt', 'chatId', 'messageId', 'status', 'order', 'debugInfo', 'key', 'title'), junk, {maxKeys: 3});

/** A record: required fields as given, optional fields possibly absent, extras that do not collide with either. */
function record(required: Record<string, fc.Arbitrary<unknown>>, optionals: Record<string, fc.Arbitrary<unknown>> = {}): fc.Arbitrary<Record<string, unknown>> {
	return fc.record({
		required: fc.record(required),
		optionals: fc.record(Object.fromEntries(Object.entries(optionals).map(([name, valid]) => [name, optional(valid)]))),
		extras,
	}).map(({required: fields, optionals: maybe, extras: more}) => {
		const out: Record<string, unknown> = {};
		for (const [name, value] of Object.entries(more)) {
			if (!(name in required) && !(name in optionals)) {
				out[name] = value;
			}
		}

		Object.assign(out, fields);
		for (const [name, value] of Object.entries(maybe)) {
			if (value !== absent) {
				out[name] = value;
			}
		}

		return out;
	});
}

/** Anything at all, for answers nothing reads: any JSON value or an empty body. */
const anything = fc.oneof(junk, extras, fc.constant(emptyBody));
const id = (prefix: string) => fc.stringMatching(/^[a-z0-9]{1,8}$/).map(tail => `${prefix}_${tail}`);
const text = fc.string({maxLength: 12});

type UploadAnswers = Record<'getSpace' | 'createChat' | 'createContent' | 'finalizeContent' | 'searchContent' | 'createSpaceMessage' | 'getLatestMessage' | 'getChatMessages', Served>;

function uploadAnswers(blobUrl: string): fc.Arbitrary<UploadAnswers> {
	return fc.record({
		getSpace: record({}, {id: text, name: text, languageModel: text, chatUpload: text, modules: fc.array(record({}, {name: text}), {maxLength: 2})}),
		createChat: record({id: id('chat')}, {title: text}),
		// The bytes must have somewhere to go: writeUrl is the one address the test serves.
		createContent: record({id: id('cont'), writeUrl: fc.constant(blobUrl)}, {readUrl: fc.constant(`${blobUrl}?read`)}),
		finalizeContent: anything,
		// Ingestion must finish for the run to reach the reply.
		searchContent: fc.array(record({ingestionState: fc.constant('FINISHED')}, {id: id('cont')}), {minLength: 1, maxLength: 2}),
		createSpaceMessage: record({}, {id: fc.constant('msg_user')}),
		// The reply must have stopped streaming and not be the user's own message.
		getLatestMessage: record({stoppedStreamingAt: fc.oneof(fc.constant('2026-01-01T00:00:00Z'), fc.integer(), fc.constant(true))}, {id: fc.constant('msg_reply'), role: fc.constant('ASSISTANT'), text}),
		getChatMessages: record({messages: fc.array(record({}, {role: fc.constantFrom('USER', 'ASSISTANT'), text}), {maxLength: 3})}),
	});
}

type JobAnswers = Record<'createMessageLog' | 'search' | 'updateMessageLog' | 'chatCompletion' | 'modifyMessage', Served>;

const jobAnswers: fc.Arbitrary<JobAnswers> = fc.record({
	createMessageLog: record({id: id('msglog')}),
	search: fc.oneof(fc.constant(null), fc.constant(emptyBody), fc.array(fc.oneof(junk, record({}, {text})), {maxLength: 4})),
	updateMessageLog: anything,
	chatCompletion: fc.tuple(record({message: record({content: text})}), fc.array(junk, {maxLength: 2}), extras)
		.map(([first, more, rest]) => ({...rest, choices: [first, ...more]})),
	modifyMessage: anything,
});

/** A required field broken: removed, null, or of another type (an empty string breaks an id, not a text). */
const broken = fc.constantFrom<unknown>(absent, null, 42, {wrong: true});
const brokenId = fc.constantFrom<unknown>(absent, null, 42, '', {wrong: true});

function breakField(answer: unknown, path: ReadonlyArray<string | number>, value: unknown): unknown {
	const copy = structuredClone(answer) as Record<string | number, unknown>;
	let target = copy;
	for (const part of path.slice(0, -1)) {
		target = target[part] as Record<string | number, unknown>;
	}

	const last = path.at(-1) ?? '';
	if (value === absent) {
		Reflect.deleteProperty(target, last);
	} else {
		target[last] = value;
	}

	return copy;
}

// ---- the server ------------------------------------------------------------------------------

/** Which operation a request is, by method and path (finalize: an upsert carrying byteSize). */
function operationOf(request: RecordedRequest): string {
	const {method, path} = request;
	if (method === 'PUT') {
		return 'putBlob';
	}

	if (path === '/content/upsert') {
		return (JSON.parse(request.body) as {input?: {byteSize?: number}}).input?.byteSize === undefined ? 'createContent' : 'finalizeContent';
	}

	const routes: Array<[string, RegExp, string]> = [
		['GET', /^\/space\/chat\/[^/]+\/messages$/, 'getChatMessages'],
		['GET', /^\/space\/[^/]+\/messages\/latest$/, 'getLatestMessage'],
		['GET', /^\/space\/[^/]+$/, 'getSpace'],
		['POST', /^\/space\/chat$/, 'createChat'],
		['POST', /^\/space\/message$/, 'createSpaceMessage'],
		['POST', /^\/content\/search$/, 'searchContent'],
		['POST', /^\/message-log$/, 'createMessageLog'],
		['PATCH', /^\/message-log\//, 'updateMessageLog'],
		['POST', /^\/search\/search$/, 'search'],
		['POST', /^\/openai\/chat\/completions$/, 'chatCompletion'],
		['PATCH', /^\/messages\//, 'modifyMessage'],
	];
	return routes.find(([verb, pattern]) => verb === method && pattern.test(path))?.[2] ?? `unknown ${method} ${path}`;
}

let server: RecordingServer;
let answers: Record<string, Served> = {};
/** Operations served, in order, for the current run. */
let served: string[] = [];
let generatedAnswers = 0;
let folder: string;

beforeAll(async () => {
	server = await startRecordingServer({
		handler(request, response) {
			const operation = operationOf(request);
			served.push(operation);
			if (operation === 'putBlob') {
				response.writeHead(201).end();
				return;
			}

			generatedAnswers++;
			const answer = answers[operation];
			response.writeHead(200, {'content-type': 'application/json', 'request-id': `req_${served.length}`});
			response.end(answer === emptyBody || answer === undefined ? '' : JSON.stringify(answer));
		},
	});
	folder = mkdtempSync(join(tmpdir(), 'platform-tui-property-'));
	writeFileSync(join(folder, 'a.txt'), 'The warranty lasts two years.');
});

afterAll(async () => {
	await server.close();
	rmSync(folder, {recursive: true, force: true});
	console.log(`Property tests: ${generatedAnswers} generated platform answers served (seed ${seed}).`);
});

function client(): PlatformClient {
	return new PlatformClient({baseUrl: server.url, apiKey: 'sk_property_0001', appId: 'app_1', userId: 'user_1', companyId: 'company_1', retries: 0});
}

async function upload(run: UploadAnswers): Promise<{reply?: string; error?: unknown}> {
	answers = run;
	served = [];
	const platform = client();
	try {
		const result = await runUpload({client: platform, folder, prompt: 'How long?', assistantId: 'assistant_1', pollIntervalMs: 0, concurrency: 1, replyTimeoutMs: 10_000, ingestionTimeoutMs: 10_000});
		return {reply: result.reply};
	} catch (error) {
		return {error};
	} finally {
		await platform.close();
	}
}

const job = {eventId: 'evt_1', userId: 'user_1', companyId: 'company_1', chatId: 'chat_1', assistantMessageId: 'msg_1', text: 'How far?'};

async function answerJob(run: JobAnswers) {
	answers = run;
	served = [];
	const platform = client();
	try {
		const outcome = await answerChosenEvent({port: platformPort(platform), job, model: 'model', cleanupTimeoutMs: 5000});
		const written = server.requests.filter(request => request.method === 'PATCH' && request.path.startsWith('/messages/')).at(-1);
		return {outcome, writtenText: written === undefined ? undefined : (JSON.parse(written.body) as {text: string}).text};
	} finally {
		await platform.close();
	}
}

/** The PlatformResponseError an error is, or was caused by. */
function responseError(error: unknown): PlatformResponseError | undefined {
	let current = error;
	for (let depth = 0; depth < 3 && current instanceof Error; depth++) {
		if (current instanceof PlatformResponseError) {
			return current;
		}

		current = current.cause;
	}

	return undefined;
}

// ---- properties ------------------------------------------------------------------------------

describe('generated answers the rule accepts', () => {
	it('the upload workflow ends with the reply, never an error', hangLimit, async () => {
		await fc.assert(fc.asyncProperty(uploadAnswers(`${server.url}/blob/one`), async run => {
			const {reply, error} = await upload(run);
			expect(error).toBeUndefined();
			const latest = run.getLatestMessage as Record<string, unknown>;
			expect(reply).toBe(typeof latest.text === 'string' ? latest.text : '');
		}), settings);
	});

	it('the chosen-module job writes the completion, never the apology', hangLimit, async () => {
		await fc.assert(fc.asyncProperty(jobAnswers, async run => {
			const {outcome, writtenText} = await answerJob(run);
			expect(outcome).toMatchObject({ok: true});
			const completion = run.chatCompletion as {choices: [{message: {content: string}}]};
			expect(writtenText).toBe(completion.choices[0].message.content);
			expect(served).toEqual(['createMessageLog', 'search', 'updateMessageLog', 'createMessageLog', 'chatCompletion', 'updateMessageLog', 'modifyMessage']);
		}), settings);
	});
});

describe('generated answers missing a required field', () => {
	const uploadBreaks: Array<{operation: keyof UploadAnswers; path: Array<string | number>; field: string}> = [
		{operation: 'createChat', path: ['id'], field: 'id'},
		{operation: 'createContent', path: ['id'], field: 'id'},
		{operation: 'getChatMessages', path: ['messages'], field: 'messages'},
	];

	it('the upload workflow stops at that answer with the error naming the operation and the field', hangLimit, async () => {
		const arbitrary = fc.tuple(uploadAnswers(`${server.url}/blob/one`), fc.constantFrom(...uploadBreaks), brokenId);
		await fc.assert(fc.asyncProperty(arbitrary, async ([run, target, value]) => {
			const {error} = await upload({...run, [target.operation]: breakField(run[target.operation], target.path, value)});
			const refused = responseError(error);
			expect(refused?.data).toMatchObject({operation: target.operation, field: target.field});
			// Nothing after the refused answer: its operation is the last one served.
			expect(served.at(-1)).toBe(target.operation);
		}), settings);
	});

	const jobBreaks: Array<{operation: keyof JobAnswers; path: Array<string | number>; field: string; next: string}> = [
		{operation: 'createMessageLog', path: ['id'], field: 'id', next: 'search'},
		{operation: 'chatCompletion', path: ['choices', 0, 'message', 'content'], field: 'choices[0].message.content', next: 'updateMessageLog'},
	];

	it('the chosen-module job takes the failure path naming the error, and no later step of the answer', hangLimit, async () => {
		const arbitrary = fc.tuple(jobAnswers, fc.constantFrom(...jobBreaks)).chain(([run, target]) => (target.field === 'id' ? brokenId : broken).map(value => [run, target, value] as const));
		await fc.assert(fc.asyncProperty(arbitrary, async ([run, target, value]) => {
			const {outcome, writtenText} = await answerJob({...run, [target.operation]: breakField(run[target.operation], target.path, value)});
			expect(outcome.ok).toBe(false);
			expect(outcome.ok || 'waiting' in outcome ? '' : outcome.reason).toContain(`returned an unexpected answer: ${target.field}`);
			expect(writtenText).toBe(apologyText);
			// The step after the refused answer never ran (the failure path only closes logs and apologises).
			const after = served.slice(served.indexOf(target.operation) + 1);
			expect(after.filter(operation => operation !== 'updateMessageLog' && operation !== 'modifyMessage')).toEqual([]);
			if (target.operation === 'chatCompletion') {
				const completed = server.requests.filter(request => request.method === 'PATCH' && request.path.startsWith('/message-log/')).at(-1);
				expect(JSON.parse(completed?.body ?? '{}')).toMatchObject({status: 'FAILED'});
			}

			expect(after).not.toContain(target.next === 'search' ? 'search' : 'chatCompletion');
		}), settings);
	});
});
