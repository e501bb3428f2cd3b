/**
 * Errors of the folder-upload workflow (spec §7). Each carries a stable `code` and the `data` the
 * CLI needs to word it (`source/commands/messages/workflow.ts`); the message is for logs and
 * debug output and holds no CLI wording.
 */
import {CoreError} from '../core-error.js';
import {formatSeconds} from '../format/duration.js';
import {errorMessage} from '../format/value.js';
import {plural} from '../format/text.js';

export type FileFailure = {
	name: string;
	contentId?: string;
	/** Where it failed: the transfer (upsert, PUT, finalize) or the platform's ingestion. */
	stage: 'upload' | 'ingestion';
	/** One short clause: `HTTP 403 from the blob store (…)`, `FAILED_PARSING`, `still QUEUED at the deadline`. */
	reason: string;
};

export class WorkflowError<Code extends string = string, Data extends Record<string, unknown> = Record<string, unknown>> extends CoreError<Code, Data> {}

/** The folder to upload is not a directory (or does not exist). */
export class NotADirectoryError extends WorkflowError<'folder-missing' | 'folder-not-a-directory', {folder: string; reason: 'missing' | 'not-a-directory'}> {
	constructor(readonly folder: string, readonly reason: 'missing' | 'not-a-directory') {
		super(reason === 'missing' ? 'folder-missing' : 'folder-not-a-directory', {folder, reason}, reason === 'missing'
			? `Not a directory: ${folder} does not exist`
			: `Not a directory: ${folder} is a file, not a folder`);
	}
}

/** The folder has files, but --include / --exclude leave none of them. */
export class NoFilesMatchError extends WorkflowError<'no-files-match', {folder: string; filtered: number; include: string[]; exclude: string[]}> {
	constructor(readonly folder: string, filtered: number, include: readonly string[], exclude: readonly string[]) {
		super('no-files-match', {folder, filtered, include: [...include], exclude: [...exclude]}, `--include/--exclude leave none of the ${filtered} files of ${folder}`);
	}
}

/** The folder holds no eligible file (regular, name not starting with a dot). */
export class NoFilesFoundError extends WorkflowError<'folder-empty', {folder: string}> {
	constructor(readonly folder: string) {
		super('folder-empty', {folder}, `${folder} has no files to upload`);
	}
}

/** Files that cannot be opened for reading; found before anything is created on the platform. */
export class UnreadableFilesError extends WorkflowError<'files-unreadable', {folder: string; files: Array<{name: string; path: string; reason: string}>}> {
	constructor(folder: string, files: Array<{name: string; path: string; reason: string}>) {
		super('files-unreadable', {folder, files}, `${plural(files.length, 'file')} in ${folder} cannot be read: ${files.map(file => `${file.name} (${file.reason})`).join(', ')}`);
	}
}

/** The upsert answer carried no `writeUrl` for a file. */
export class MissingWriteUrlError extends WorkflowError<'write-url-missing', {file: string; contentId?: string}> {
	constructor(readonly fileName: string, readonly contentId: string | undefined) {
		super('write-url-missing', contentId ? {file: fileName, contentId} : {file: fileName},
			`The platform returned no writeUrl for ${fileName}${contentId ? ` (content ${contentId})` : ''}, so its bytes cannot be uploaded`);
	}
}

/** The blob host answered the PUT with a non-2xx status. */
export class BlobUploadError extends WorkflowError<'blob-upload-failed', {file: string; status: number; detail: string}> {
	constructor(readonly fileName: string, readonly status: number, readonly detail: string) {
		super('blob-upload-failed', {file: fileName, status, detail}, `Uploading ${fileName} failed: the blob store answered the PUT with HTTP ${status}${detail ? ` (${detail})` : ''}`);
	}
}

/** Any other failure while upserting, sending or finalizing one file. */
export class FileUploadError extends WorkflowError<'file-upload-failed', {file: string; detail: string}> {
	constructor(readonly fileName: string, cause: unknown) {
		const detail = errorMessage(cause).replace(/\.$/, '');
		super('file-upload-failed', {file: fileName, detail}, `Uploading ${fileName} failed: ${detail}`, {cause});
	}
}

/** A content's ingestion state began with FAILED. */
export class IngestionFailedError extends WorkflowError<'ingestion-failed', {contentId: string; file: string; state: string}> {
	constructor(readonly contentId: string, readonly fileName: string, readonly state: string) {
		super('ingestion-failed', {contentId, file: fileName, state}, `Ingestion failed for content ${contentId} (${fileName}) with state ${state}`);
	}
}

/** The ingestion deadline passed with contents still pending. */
export class IngestionTimeoutError extends WorkflowError<'ingestion-timeout', {pending: string[]; timeoutMs: number}> {
	readonly pending: string[];

	constructor(pending: readonly string[], readonly timeoutMs: number) {
		const sorted = [...pending].sort(compareCodePoints);
		super('ingestion-timeout', {pending: sorted, timeoutMs}, `Ingestion timed out after ${formatSeconds(timeoutMs)} with ${plural(sorted.length, 'content')} pending: ${sorted.join(', ')}`);
		this.pending = sorted;
	}
}

/** No complete assistant reply arrived in time. */
export class ReplyTimeoutError extends WorkflowError<'reply-timeout', {chatId: string; timeoutMs: number}> {
	/** `cause`: the last latest-message answer that could not be read, when there was one. */
	constructor(readonly chatId: string, readonly timeoutMs: number, cause?: unknown) {
		super('reply-timeout', {chatId, timeoutMs}, `Timed out after ${formatSeconds(timeoutMs)} waiting for the assistant's reply in chat ${chatId}`, cause === undefined ? undefined : {cause});
	}
}

/** Keep-going: every file failed, so there is nothing to ask about. */
export class NothingIngestedError extends WorkflowError<'nothing-ingested', {chatId: string; failed: FileFailure[]}> {
	constructor(readonly chatId: string, readonly failed: FileFailure[]) {
		super('nothing-ingested', {chatId, failed}, `No file of chat ${chatId} was ingested: ${failed.map(failure => `${failure.name} (${failure.reason})`).join(', ')}`);
	}
}

/** The reply arrived but the chat history could not be fetched. */
export class HistoryFetchError extends WorkflowError<'history-failed', {chatId: string; detail: string}> {
	constructor(readonly chatId: string, cause: unknown) {
		const detail = errorMessage(cause).replace(/\.$/, '');
		super('history-failed', {chatId, detail}, `The reply arrived but the history of chat ${chatId} could not be fetched: ${detail}`, {cause});
	}
}

/** Orders strings by Unicode code point (not by UTF-16 unit, not by locale). */
export function compareCodePoints(a: string, b: string): number {
	if (a === b) {
		return 0;
	}

	const left = a[Symbol.iterator]();
	const right = b[Symbol.iterator]();
	for (;;) {
		const x = left.next();
		const y = right.next();
		if (x.done || y.done) {
			return x.done ? (y.done ? 0 : -1) : 1;
		}

		const cx = x.value.codePointAt(0) ?? 0;
		const cy = y.value.codePointAt(0) ?? 0;
		if (cx !== cy) {
			return cx < cy ? -1 : 1;
		}
	}
}

/**
 * An upload that stopped after its chat was known: the error, the chat, and the command that
 * continues it (the CLI words the advice: cli/messages/resume.ts).
 */
export class UploadStoppedError extends Error {
	constructor(override readonly cause: unknown, readonly chatId: string, readonly command: string) {
		super(cause instanceof Error ? cause.message : String(cause), {cause});
		this.name = 'UploadStoppedError';
	}
}
