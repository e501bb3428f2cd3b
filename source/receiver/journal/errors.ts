/** The journal's core errors; `source/commands/messages/journal.ts` words them for the CLI. */
import {CoreError} from '../../core-error.js';

export type JournalErrorData = {
	'journal-locked': {directory: string; pid: number; command?: string};
	'journal-open-failed': {directory: string; reason: string};
	'journal-missing': {directory: string};
	'journal-damaged': {directory: string; file: string; reason: string};
	'journal-read-only': {directory: string; folder: string; readOnlyFileSystem?: boolean};
	'journal-in-use': {directory: string; pid: number};
	'journal-unrecoverable': {directory: string; file: string; reason: string};
	'journal-record-format': {format: string; id: string};
	'journal-record-damaged': {id: string; receivedAt: string; reason: string};
	'journal-event-unknown': {id: string; near: string[]; directory: string};
	'journal-event-ambiguous': {prefix: string; candidates: string[]; more: boolean; directory: string};
	'journal-event-busy': {id: string; holder: string};
	'journal-event-not-replayable': {id: string; event: string};
};

export type JournalErrorCode = keyof JournalErrorData;

export class JournalError<Code extends JournalErrorCode = JournalErrorCode> extends CoreError<Code, JournalErrorData[Code]> {}

export function journalError<Code extends JournalErrorCode>(code: Code, data: JournalErrorData[Code], message: string, cause?: unknown): JournalError<Code> {
	return new JournalError(code, data, message, cause === undefined ? undefined : {cause});
}
