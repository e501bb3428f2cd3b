/**
 * How a stopped upload goes on: the chat it was filling and the exact command that continues it
 * (`platform-tui upload DIR "PROMPT" --chat chat_…` with the same selection), which sends only
 * what the chat's manifest does not hold yet. Shown when the chat is known, on failure and on
 * cancel, in plain output, on the screen and in the `error` / `cancelled` JSON lines.
 */
import {defaultMaxDelete} from '../../workflow/deletions.js';
import type {SyncCommandOptions} from './sync.js';

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
