/**
 * How a run ends: its exit codes, and the end of a run stopped from outside (Ctrl+C 130, the
 * reader of its output gone 141, SIGTERM 143). A command that knew what it was working on when it
 * stopped throws `RunStoppedError`; the dispatcher (run-cli.ts) ends the run with the `error` line
 * of code `cancelled` as it ends every other error, naming the profile, the chat and the command
 * that continues it, and writes the command's sentence on stderr (nothing when the reader went away).
 */
import {CancelledError, isAbortError} from '../errors.js';
import type {RunError} from './json.js';
import {resumeAdvice} from './messages/resume.js';
import {readerGoneReason} from './output.js';

export const exitCodes = {ok: 0, failure: 1, interrupted: 130, readerGone: 141, terminated: 143} as const;

/** The codes of a run stopped from outside: Ctrl+C, the reader gone, SIGTERM. */
export const stoppedCodes = new Set<number>([exitCodes.interrupted, exitCodes.readerGone, exitCodes.terminated]);

/** The exit code for an error that ended a command. */
export function exitCodeFor(error: unknown, signal: AbortSignal): number {
	if (isAbortError(error) || signal.aborted) {
		return signal.reason === 'SIGTERM' ? exitCodes.terminated : (signal.reason === readerGoneReason ? exitCodes.readerGone : exitCodes.interrupted);
	}

	const code = (error as {exitCode?: unknown} | undefined)?.exitCode;
	return typeof code === 'number' ? code : exitCodes.failure;
}

/** What a command knew when its run was stopped. */
export type Stop = {
	/** The one sentence for stderr: what stopped and what was kept. */
	sentence: string;
	/** The chat the run was working in. */
	chatId?: string;
	/** The command that continues the run in that chat. */
	resume?: string;
	/** What to do next; by default the resume advice when the run can be continued. */
	next?: string;
};

export class RunStoppedError extends CancelledError {
	override name = 'RunStoppedError';

	constructor(readonly stop: Stop) {
		super(stop.sentence);
	}
}

const stoppedBy = new Map<number, string>([[exitCodes.terminated, 'Stopped by SIGTERM.'], [exitCodes.readerGone, 'Stopped: the reader of the output went away.']]);

/** The `error` line of a stopped run (the profile and the ids are the dispatcher's and the writer's). */
export function cancelledText(code: number, stop?: Stop): RunError {
	const {chatId, resume} = stop ?? {};
	const advice = chatId !== undefined && resume !== undefined ? resumeAdvice(chatId, resume) : undefined;
	return {
		code: 'cancelled',
		message: stoppedBy.get(code) ?? 'Cancelled by Ctrl+C.',
		next: stop?.next ?? advice ?? 'Run the command again; work already finished is kept.',
		...(chatId === undefined ? {} : {chatId}),
		...(resume === undefined ? {} : {resume}),
	};
}
