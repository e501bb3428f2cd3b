import {cutCodePoints, plural} from '../format/text.js';
import {errorMessage} from '../format/value.js';
import type {MessageLog} from '../platform/types.js';
import type {AnswerPort, PortCall} from '../receiver/answer-port.js';
import type {PlatformClock} from './clock.js';
import type {MessageRecord} from './chat-store.js';
import {defaultModel} from './spaces.js';

/*
 * The built-in assistant's own sequence. It writes only through the answer port, so that it can
 * be replaced by the one implementation of spec §6.2 (source/receiver/answer.ts) once that exists.
 */
const searchLimit = 3;
const contextCutCodePoints = 500;
const temperature = 0.3;

export type AssistantJob = {
	chatId: string;
	userMessage: MessageRecord;
	assistantMessage: MessageRecord;
	call: PortCall;
};

/** Search the chat's content, ask the model, write the answer in a few partial updates, stop the stream. */
export async function builtInAnswer(job: AssistantJob, port: AnswerPort, timing: {clock: PlatformClock; stepMs: number; signal: AbortSignal}): Promise<void> {
	const {chatId, userMessage, assistantMessage, call} = job;
	const question = userMessage.text ?? '';
	const open: MessageLog[] = [];
	const write = async (text: string, stop: boolean): Promise<void> => {
		const at = new Date(timing.clock.now()).toISOString();
		await port.modifyMessage(assistantMessage.id, {chatId, text, ...(stop ? {stoppedStreamingAt: at, completedAt: at} : {})}, call);
	};

	try {
		const searchLog = await port.createMessageLog({messageId: assistantMessage.id, text: 'Searching the knowledge base', status: 'RUNNING', order: 1}, call);
		open.push(searchLog);
		const hits = await port.search({searchString: question, searchType: 'COMBINED', limit: searchLimit, chatId}, call) ?? [];
		const context = hits.length === 0
			? 'No relevant documents were found.'
			: hits.map(hit => cutCodePoints(hit.text ?? '', contextCutCodePoints)).join('\n---\n');
		await port.updateMessageLog(searchLog.id, {status: 'COMPLETED', text: `Found ${plural(hits.length, 'relevant document')}`}, call);
		open.pop();
		const generateLog = await port.createMessageLog({messageId: assistantMessage.id, text: 'Generating a response', status: 'RUNNING', order: 2}, call);
		open.push(generateLog);
		const completion = await port.chatCompletion({
			model: defaultModel,
			messages: [
				{role: 'system', content: `Answer the user's question using only the documents below.\n\nContext:\n${context}`},
				{role: 'user', content: question},
			],
			options: {temperature},
		}, call);
		const content = completion.choices[0]?.message.content ?? '';
		const words = content.split(/(?<=\s)/);
		const steps = Math.min(3, words.length);
		for (let step = 1; step < steps; step++) {
			// The partial updates are sequential by design: each one extends the text before it.
			 
			await write(words.slice(0, Math.ceil((words.length * step) / steps)).join(''), false);
			 
			await timing.clock.sleep(timing.stepMs, timing.signal);
		}

		await port.updateMessageLog(generateLog.id, {status: 'COMPLETED', text: 'Response generated'}, call);
		open.pop();
		await write(content, true);
	} catch (error) {
		// Best effort: the chat may have been deleted meanwhile, then nothing can be written.
		await Promise.allSettled(open.map(async log => port.updateMessageLog(log.id, {status: 'FAILED'}, call)));
		await write(`(local platform) Sorry, something went wrong while answering (${errorMessage(error)}). Please try again.`, true).catch(() => undefined);
	}
}
