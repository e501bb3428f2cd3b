import {answerChosenEvent, type JobOutcome} from '../receiver/answer.js';
import type {AnswerPort} from '../receiver/answer-port.js';
import type {MessageRecord} from './chat-store.js';
import {defaultModel} from './spaces.js';

export type AssistantJob = {
	chatId: string;
	userMessage: MessageRecord;
	assistantMessage: MessageRecord;
	userId: string;
	companyId: string;
};

/**
 * The built-in assistant: the one implementation of spec §6.2 (the same answer `serve` gives),
 * written through the in-memory answer port. Search the chat, build the context, log the steps,
 * ask the model, write the message and stop the stream; on failure the open logs are FAILED and
 * the apology is written.
 */
export async function builtInAnswer(job: AssistantJob, port: AnswerPort, signal: AbortSignal): Promise<JobOutcome> {
	return answerChosenEvent({
		port,
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
