import type {CommandContext} from '../../context.js';
import {CancelledError, isAbortError} from '../../errors.js';
import {runUpload, type UploadOptions} from '../../workflow/run-upload.js';
import {renderApp} from '../render.js';
import {UploadApp} from './app.js';
import {UploadViewModel} from './state.js';

/** How a stopped run into a known chat goes on (the command layer words it). */
export type Resume = {advice(chatId: string): string; wrap(error: unknown, chatId: string): unknown};

export type InteractiveOutcome = {code: number; error?: unknown; chatId?: string};

/**
 * Runs the workflow under the live Ink screen. Returns the exit code: 0 done, 1 failed (the
 * error shows in the red box; with keep-going, some files left out), 130 cancelled with q /
 * Ctrl+C (143 on SIGTERM). The reply and the history are printed once, as ordinary output, and
 * the last frame holds no spinner.
 */
export async function runInteractive(context: CommandContext, options: UploadOptions, cancel: AbortController, describe: (error: unknown) => Promise<string>, banner?: string, resume?: Resume): Promise<InteractiveOutcome> {
	const model = new UploadViewModel(Date.now, options.prompt, banner);
	// How to continue, once the chat is known: shown under "Cancelled", and in the error's next step.
	const resumeText = (): string | undefined => (model.state.chat.id === undefined ? undefined : resume?.advice(model.state.chat.id));
	const onCancel = (): void => {
		const text = resumeText();
		cancel.abort('q');
		model.cancel(text);
	};

	const instance = renderApp(context, <UploadApp model={model} onCancel={onCancel}/>);
	let outcome: InteractiveOutcome;
	try {
		const result = await runUpload(options, event => {
			model.apply(event);
		});
		outcome = {code: result.failed.length > 0 ? 1 : 0, chatId: result.chatId};
	} catch (error) {
		if (error instanceof CancelledError || isAbortError(error)) {
			model.cancel(resumeText());
			outcome = {code: !cancel.signal.aborted && context.signal.reason === 'SIGTERM' ? 143 : 130};
		} else {
			const chatId = model.state.chat.id;
			const stopped = chatId === undefined || resume === undefined ? error : resume.wrap(error, chatId);
			model.fail(await describe(stopped));
			outcome = {code: 1, error: stopped};
		}
	}

	// The app leaves by itself once its last frame shows the result, the error or the cancellation.
	await Promise.race([instance.waitUntilExit(), new Promise(resolve => {
		setTimeout(resolve, 2000).unref();
	})]);
	instance.unmount();
	return outcome;
}
