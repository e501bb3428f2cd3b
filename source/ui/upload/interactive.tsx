import type {CommandContext} from '../../commands/legacy-types.js';
import {CancelledError, formatError, isAbortError} from '../../errors.js';
import {runUpload, type UploadOptions} from '../../workflow/run-upload.js';
import {renderApp} from '../render.js';
import {UploadApp} from './app.js';
import {UploadViewModel} from './state.js';

/**
 * Runs the workflow under the live Ink screen. Returns the exit code: 0 done, 1 failed (the
 * error shows in the red panel), 130 cancelled with q / Ctrl+C (143 on SIGTERM).
 */
export async function runInteractive(context: CommandContext, options: UploadOptions, cancel: AbortController, banner?: string): Promise<number> {
	const model = new UploadViewModel(Date.now, options.prompt);
	const onCancel = (): void => {
		cancel.abort('q');
		model.cancel();
	};

	const instance = renderApp(context, <UploadApp model={model} banner={banner} onCancel={onCancel}/>);
	let code: number;
	let failure: string | undefined;
	try {
		await runUpload(options, event => {
			model.apply(event);
		});
		code = 0;
	} catch (error) {
		if (error instanceof CancelledError || isAbortError(error)) {
			model.cancel();
			code = !cancel.signal.aborted && context.signal.reason === 'SIGTERM' ? 143 : 130;
		} else {
			failure = formatError(error, false);
			model.fail(failure);
			if (context.debug) {
				context.stderr.write(`${formatError(error, true)}\n`);
			}

			code = 1;
		}
	}

	// The app leaves by itself once its last frame shows the result, the error or the cancellation.
	await Promise.race([instance.waitUntilExit(), new Promise(resolve => {
		setTimeout(resolve, 2000).unref();
	})]);
	instance.unmount();
	if (failure !== undefined && !context.debug && !context.stderr.isTTY) {
		// The red panel is on the terminal; a redirected stderr still gets the sentence.
		context.stderr.write(`Error: ${failure}\n`);
	}

	return code;
}
