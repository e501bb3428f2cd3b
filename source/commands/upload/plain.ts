/** upload's plain output: lines on stdout and stderr, or NDJSON with --json (no live screen). */
import {CancelledError, isAbortError} from '../../errors.js';
import type {UploadEvent} from '../../workflow/events.js';
import {runUpload, type UploadOptions} from '../../workflow/run-upload.js';
import type {Deps} from '../../cli/deps.js';
import {resumeAdvice} from '../../cli/messages/resume.js';
import {RunStoppedError} from '../../cli/stopped.js';
import {UploadStoppedError} from '../../workflow/errors.js';
import {localBanner, type Target} from '../platform-target.js';

/** Where a run stands for its resume advice: the chat, once created or checked. */
function chatOf(event: UploadEvent): string | undefined {
	return event.type === 'chat-created' || event.type === 'chat-checked' ? event.chatId : undefined;
}

export type PlainOptions = {note: Target['note']; resumeFor: ((chatId: string) => string) | undefined; quiet: boolean; statsIntervalMs: number};

export async function runPlain(deps: Deps, options: UploadOptions, {note, resumeFor, quiet, statsIntervalMs}: PlainOptions): Promise<number> {
	const {context, output} = deps;
	const {createPlainOutput} = await import('../../ui/upload/plain-output.js');
	const print = createPlainOutput({quiet, statsIntervalMs});
	const write = (lines: ReturnType<typeof print.due>): void => {
		for (const {stream, text} of lines) {
			context[stream].write(`${text}\n`);
		}
	};
	if (note) {
		// Without --json the banner is a diagnostic (stderr).
		output.print({type: 'local-platform', baseUrl: note.baseUrl, ...(note.receiverUrl ? {receiverUrl: note.receiverUrl} : {})});
		if (!output.json && !quiet) {
			context.stderr.write(`${localBanner(note)}\n`);
		}
	}

	let chatId: string | undefined;
	const onEvent = (event: UploadEvent): void => {
		// Once the chat is known, how to continue is said at once: a killed run prints nothing after.
		const known = resumeFor && chatOf(event);
		chatId ??= known ?? ('chatId' in event && typeof event.chatId === 'string' ? event.chatId : undefined);
		if (output.json) {
			// The run's last line is the dispatcher's `result` (cli/json-writer.ts); the workflow's result is the reply.
			const line = event.type === 'result' ? {...event, type: 'reply' as const} : event;
			output.print(known === undefined ? line : {...line, resume: resumeFor?.(known)});
			return;
		}

		write(print.event(event));

		if (event.type === 'chat-created' && resumeFor && !quiet) {
			context.stderr.write(`If this run stops, continue it with: ${resumeFor(event.chatId)}\n`);
		}
	};

	// The summary also comes while no event does (a long wait for the reply).
	const stats = statsIntervalMs > 0 && !quiet && !output.json ? setInterval(() => {
		write(print.due());
	}, statsIntervalMs) : undefined;
	stats?.unref();
	try {
		const result = await runUpload(options, onEvent);
		if (result.failed.length > 0) {
			context.stderr.write(`${result.failed.length} of ${result.failed.length + result.files.length} files were left out of chat ${result.chatId}; the reply covers the others.\n`);
			return 1;
		}

		return 0;
	} catch (error) {
		if (error instanceof CancelledError || isAbortError(error)) {
			const resume = chatId === undefined ? undefined : resumeFor?.(chatId);
			const stop = {...(chatId === undefined ? {} : {chatId}), ...(resume === undefined ? {} : {resume})};
			output.print({type: 'cancelled', ...stop});
			// The dispatcher ends the run: the `error` line names the chat and the resume, stderr gets the sentence.
			throw new RunStoppedError({sentence: `Cancelled; in-flight requests were aborted.${chatId === undefined || resume === undefined ? '' : ` ${resumeAdvice(chatId, resume)}`}`, ...stop});
		}

		throw chatId === undefined || !resumeFor ? error : new UploadStoppedError(error, chatId, resumeFor(chatId));
	} finally {
		clearInterval(stats);
	}
}
