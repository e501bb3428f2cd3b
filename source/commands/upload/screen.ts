/** upload's live screen in a terminal, then (with --interactive) the follow-up prompt. */
import type {Deps} from '../../cli/deps.js';
import {resumeAdvice} from '../../cli/messages/resume.js';
import {withReactBuild} from '../../ui/react-build.js';
import type {UploadOptions} from '../../workflow/run-upload.js';
import {UploadStoppedError} from '../../workflow/errors.js';
import {localBanner, type Target} from '../platform-target.js';

/** The sentence and next step for an error of this command, as error-message.ts words every error (loaded only when needed). */
export async function describeUploadError(error: unknown): Promise<string> {
	const {describeError, joinText} = await import('../../cli/error-message.js');
	return joinText(describeError(error, {offersLocal: true}));
}

export type ScreenRun = {
	workflow: UploadOptions;
	cancel: AbortController;
	target: Target;
	/** How to continue a stopped run in a chat; none for the in-process local platform. */
	resume: ((chatId: string) => string) | undefined;
	/** --interactive: after a reply, a prompt for follow-up questions in the chat. */
	followUp: {ask: boolean; pollIntervalMs: number; replyTimeoutMs: number};
};

/** Runs the workflow under the live screen; its exit code, or the follow-up prompt's. */
export async function runScreen(deps: Deps, {workflow, cancel, target, resume, followUp}: ScreenRun): Promise<number> {
	const {context} = deps;
	// Ink loads only for the live screen, so usage errors and plain runs start fast and lean.
	const {runInteractive} = await withReactBuild(async () => import('../../ui/upload/interactive.js'));
	const outcome = await runInteractive(context, workflow, cancel, describeUploadError, target.note ? localBanner(target.note) : undefined, resume && {
		advice: chatId => resumeAdvice(chatId, resume(chatId)),
		wrap: (error, chatId) => new UploadStoppedError(error, chatId, resume(chatId)),
	});
	if (outcome.error !== undefined && context.debug) {
		const {debugStack} = await import('../../cli/error-message.js');
		context.stderr.write(`${debugStack(outcome.error) ?? ''}\n`);
	} else if (outcome.error !== undefined && !context.stderr.isTTY) {
		// The red box is on the terminal; a redirected stderr still gets the sentence.
		context.stderr.write(`Error: ${await describeUploadError(outcome.error)}\n`);
	}

	if (followUp.ask && outcome.code === 0 && outcome.chatId !== undefined) {
		const {openChatPrompt} = await import('../chat.js');
		const conversation = {client: target.client, assistantId: target.assistantId, chatId: outcome.chatId, pollIntervalMs: followUp.pollIntervalMs, replyTimeoutMs: followUp.replyTimeoutMs};
		return await openChatPrompt(deps, conversation, `Follow-up questions in chat ${outcome.chatId}`);
	}

	return outcome.code;
}
