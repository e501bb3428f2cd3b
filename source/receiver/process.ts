import type {CallOptions, PlatformClient} from '../platform/client.js';
import type {MessageLogStatus} from '../platform/types.js';

/** Texts written by the chosen-module processing (spec §6.2). */
export const logTexts = {
	searching: 'Searching the knowledge base…',
	found: (count: number) => `Found ${count} documents`,
	generating: 'Generating the response…',
	generated: 'Response generated',
} as const;

/** The context used when the search finds nothing. */
export const noResultsContext = 'No relevant documents were found in the knowledge base.';

/** Written into the assistant message when processing fails. */
export const apologyText = 'Sorry, something went wrong while preparing the answer. Please try again.';

/** Search parameters and completion options fixed by spec §6.2 and §8. */
export const searchLimit = 3;
export const contextCutCharacters = 500;
export const contextSeparator = '\n---\n';
export const completionTemperature = 0.3;

/** The system message: answer from the supplied context, which is appended. */
export function systemMessage(context: string): string {
	return [
		'You are a helpful assistant. Answer the user\'s question using only the context below.',
		'If the context does not contain the answer, say that you could not find it in the documents.',
		'',
		'Context:',
		context,
	].join('\n');
}

/** What the processing needs from a `platform.chat.external-module.chosen` event. */
export type ChosenJob = {
	eventId: string;
	userId: string;
	companyId: string;
	/** From the payload's `chatid` (lower-case "id" in this event). */
	chatId: string;
	text: string;
	assistantMessageId: string;
};

function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown): string | undefined {
	return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/**
 * Reads the fields of a chosen-module event (top-level userId/companyId, payload chatid,
 * userMessage.text, assistantMessage.id). Returns the names of the missing ones when any is absent.
 */
export function parseChosenEvent(envelope: Record<string, unknown>, eventId: string): {job: ChosenJob} | {missing: string[]} {
	const payload = isRecord(envelope.payload) ? envelope.payload : {};
	const userMessage = isRecord(payload.userMessage) ? payload.userMessage : {};
	const assistantMessage = isRecord(payload.assistantMessage) ? payload.assistantMessage : {};
	const userId = nonEmptyString(envelope.userId);
	const companyId = nonEmptyString(envelope.companyId);
	const chatId = nonEmptyString(payload.chatid);
	const assistantMessageId = nonEmptyString(assistantMessage.id);
	const text = typeof userMessage.text === 'string' ? userMessage.text : undefined;
	const missing: string[] = [];
	if (!userId) {
		missing.push('userId');
	}

	if (!companyId) {
		missing.push('companyId');
	}

	if (!chatId) {
		missing.push('payload.chatid');
	}

	if (!assistantMessageId) {
		missing.push('payload.assistantMessage.id');
	}

	if (text === undefined) {
		missing.push('payload.userMessage.text');
	}

	if (!userId || !companyId || !chatId || !assistantMessageId || text === undefined) {
		return {missing};
	}

	return {job: {eventId, userId, companyId, chatId, text, assistantMessageId}};
}

/** Cuts a string to its first `count` characters (code points, so no surrogate pair is split). */
export function cutCharacters(text: string, count: number): string {
	if (text.length <= count) {
		return text;
	}

	let out = '';
	let taken = 0;
	for (const character of text) {
		if (taken === count) {
			break;
		}

		out += character;
		taken++;
	}

	return out;
}

/** The string form of a search result that has no `text`. */
function stringForm(item: unknown): string {
	if (typeof item === 'string') {
		return item;
	}

	if (item === null || item === undefined || typeof item !== 'object') {
		return String(item);
	}

	try {
		return JSON.stringify(item);
	} catch {
		return String(item);
	}
}

/**
 * Builds the context from search results (spec §6.2 step 3): each result's `text` (or, without
 * one, its string form) cut to its first 500 characters, joined with a line `---`; the fixed
 * no-results sentence when the list is empty or absent.
 */
export function buildContext(results: unknown): {context: string; documents: number} {
	const items = Array.isArray(results) ? results : [];
	if (items.length === 0) {
		return {context: noResultsContext, documents: 0};
	}

	const parts = items.map(item => {
		const text = isRecord(item) && typeof item.text === 'string' ? item.text : stringForm(item);
		return cutCharacters(text, contextCutCharacters);
	});
	return {context: parts.join(contextSeparator), documents: items.length};
}

export type StageUpdate =
	| {stage: 'searching'}
	| {stage: 'generating'; documents: number}
	| {stage: 'answered'; documents: number};

export type JobOutcome =
	| {ok: true; documents: number}
	| {ok: false; reason: string; cleanup: {logsFailed: number; apologyWritten: boolean; errors: string[]}};

export type AnswerOptions = {
	client: PlatformClient;
	job: ChosenJob;
	model: string;
	/** Aborted to cut the job off (drain deadline); the failure path then runs with its own time budget. */
	signal?: AbortSignal;
	/** Time allowed to each call of the failure path (closing logs, the apology), ms. Default 10 000. */
	cleanupTimeoutMs?: number;
	onStage?: (update: StageUpdate) => void;
};

function describe(error: unknown): string {
	if (error instanceof Error) {
		return error.message;
	}

	return String(error);
}

/**
 * Answers a chosen-module event exactly as spec §6.2 says, every call made for the event's user
 * and company: log 1 RUNNING → search → context → log 1 COMPLETED → log 2 RUNNING → chat
 * completion → log 2 COMPLETED → assistant message written (with stoppedStreamingAt and
 * completedAt). On any exception every log still open is set FAILED, then the assistant message
 * gets the apology. Never throws.
 */
export async function answerChosenEvent(options: AnswerOptions): Promise<JobOutcome> {
	const {client, job, model, signal} = options;
	const call: CallOptions = {userId: job.userId, companyId: job.companyId};
	if (signal) {
		call.signal = signal;
	}

	const openLogs: string[] = [];
	let documents = 0;
	try {
		signal?.throwIfAborted();
		options.onStage?.({stage: 'searching'});
		const searchLog = await client.createMessageLog({messageId: job.assistantMessageId, text: logTexts.searching, status: 'RUNNING', order: 1}, call);
		openLogs.push(searchLog.id);
		const results = await client.search({searchString: job.text, searchType: 'COMBINED', limit: searchLimit, chatId: job.chatId}, call);
		const built = buildContext(results);
		documents = built.documents;
		await client.updateMessageLog(searchLog.id, {status: 'COMPLETED', text: logTexts.found(documents)}, call);
		openLogs.splice(openLogs.indexOf(searchLog.id), 1);

		options.onStage?.({stage: 'generating', documents});
		const generateLog = await client.createMessageLog({messageId: job.assistantMessageId, text: logTexts.generating, status: 'RUNNING', order: 2}, call);
		openLogs.push(generateLog.id);
		const completion = await client.chatCompletion({
			model,
			messages: [
				{role: 'system', content: systemMessage(built.context)},
				{role: 'user', content: job.text},
			],
			options: {temperature: completionTemperature},
		}, call);
		const content = completion?.choices?.[0]?.message?.content;
		if (typeof content !== 'string') {
			throw new TypeError('the chat completion returned no choices[0].message.content');
		}

		await client.updateMessageLog(generateLog.id, {status: 'COMPLETED', text: logTexts.generated}, call);
		openLogs.splice(openLogs.indexOf(generateLog.id), 1);
		const now = new Date().toISOString();
		await client.modifyMessage(job.assistantMessageId, {chatId: job.chatId, text: content, stoppedStreamingAt: now, completedAt: now}, call);
		options.onStage?.({stage: 'answered', documents});
		return {ok: true, documents};
	} catch (error) {
		const reason = describe(signal?.aborted && signal.reason instanceof Error ? signal.reason : error);
		const cleanup = await failJob(client, job, openLogs, options.cleanupTimeoutMs ?? 10_000);
		return {ok: false, reason, cleanup};
	}
}

/** The failure path: every open log → FAILED, then the apology (also stopping the stream). */
async function failJob(client: PlatformClient, job: ChosenJob, openLogs: string[], timeoutMs: number): Promise<{logsFailed: number; apologyWritten: boolean; errors: string[]}> {
	const errors: string[] = [];
	let logsFailed = 0;
	const callFor = (): CallOptions => ({userId: job.userId, companyId: job.companyId, signal: AbortSignal.timeout(timeoutMs)});
	const failed: MessageLogStatus = 'FAILED';
	for (const logId of openLogs) {
		try {
			// eslint-disable-next-line no-await-in-loop
			await client.updateMessageLog(logId, {status: failed}, callFor());
			logsFailed++;
		} catch (error) {
			errors.push(`closing log ${logId}: ${describe(error)}`);
		}
	}

	let apologyWritten = false;
	try {
		const now = new Date().toISOString();
		await client.modifyMessage(job.assistantMessageId, {chatId: job.chatId, text: apologyText, stoppedStreamingAt: now, completedAt: now}, callFor());
		apologyWritten = true;
	} catch (error) {
		errors.push(`writing the apology to message ${job.assistantMessageId}: ${describe(error)}`);
	}

	return {logsFailed, apologyWritten, errors};
}
