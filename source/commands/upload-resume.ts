/**
 * How a stopped upload goes on: the chat it was filling and the exact command that continues it
 * (`platform-tui upload DIR "PROMPT" --chat chat_…` with the same selection), which sends only
 * what the chat's manifest does not hold yet. Shown when the chat is known, on failure and on
 * cancel, in plain output, on the screen and in the `error` / `cancelled` JSON lines.
 */
import {defaultMaxDelete} from '../workflow/deletions.js';
import type {SyncCommandOptions} from './upload-sync.js';

/** One word for a POSIX shell: as is when it holds only safe characters, else single-quoted. */
export function shellQuote(word: string): string {
	return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll('\'', '\'\\\'\'')}'`;
}

/** The command that continues an upload into `chatId`, with the flags that choose its files. */
export function resumeCommand(run: {folder: string; prompt: string; keepGoing?: boolean; sync: SyncCommandOptions}, chatId: string): string {
	const {sync} = run;
	const words = ['platform-tui', 'upload', run.folder, run.prompt, '--chat', chatId];
	if (run.keepGoing) {
		words.push('--keep-going');
	}

	if (sync.recursive) {
		words.push('--recursive');
	}

	for (const glob of sync.include) {
		words.push('--include', glob);
	}

	for (const glob of sync.exclude) {
		words.push('--exclude', glob);
	}

	if (sync.minAgeMs > 0) {
		words.push('--min-age', `${sync.minAgeMs / 1000}s`);
	}

	if (sync.deleteExcluded) {
		words.push('--delete-excluded');
	} else if (sync.delete) {
		words.push('--delete');
	}

	if ((sync.delete || sync.deleteExcluded) && sync.maxDelete !== defaultMaxDelete) {
		words.push('--max-delete', String(sync.maxDelete));
	}

	return words.map(word => shellQuote(word)).join(' ');
}

/** The sentence that tells where the files went and how to go on. */
export function resumeAdvice(chatId: string, command: string): string {
	return `Chat ${chatId} keeps every file sent so far; continue with: ${command}`;
}

/** An upload that stopped after its chat was known: the error, and how to continue. */
export class UploadStoppedError extends Error {
	constructor(override readonly cause: unknown, readonly chatId: string, readonly command: string) {
		super(cause instanceof Error ? cause.message : String(cause), {cause});
		this.name = 'UploadStoppedError';
	}
}
