/** Progress events of the folder-upload workflow, in the order they can occur. */
import type {FileFailure} from './errors.js';
import type {SkippedEntry} from './files.js';

export type SpaceSummary = {
	id?: string;
	name: string;
	languageModel: string;
	chatUpload: string;
	modules: string[];
};

export type ChatMessageSummary = {role: string; text: string};

export type PlannedFile = {name: string; size: number};

export type UploadEvent =
	/** The folder was read: the files that will be uploaded, in upload order, and the entries skipped. */
	| {type: 'files-listed'; folder: string; files: Array<{name: string; size: number; mimeType: string}>; totalBytes: number; skipped: SkippedEntry[]}
	| {type: 'space-loaded'; space: SpaceSummary}
	/** Get space failed; the workflow goes on without it. */
	| {type: 'space-warning'; message: string}
	| {type: 'chat-creating'; title: string}
	| {type: 'chat-created'; chatId: string; title: string; durationMs: number}
	/** `--chat`: the existing chat was found (it holds `messages` messages); files go into it. */
	| {type: 'chat-checked'; chatId: string; messages: number; durationMs: number}
	/**
	 * A sync's plan (with `--chat`, a selection or `--dry-run`): new keys to upload, changed ones to
	 * replace, unchanged ones awaiting ingestion or skipped; `manifest` is the file that records them.
	 */
	| {type: 'sync-planned'; dryRun: boolean; chatId?: string; manifest?: string; upload: PlannedFile[]; replace: PlannedFile[]; awaiting: Array<PlannedFile & {contentId: string}>; unchanged: Array<PlannedFile & {contentId: string}>; delete?: Array<{name: string; contentId: string}>}
	/** `--delete`: a content whose file is gone was deleted on the platform and dropped from the manifest. */
	| {type: 'content-deleted'; name: string; contentId: string}
	/** `--delete`: deleting a content failed; its manifest entry is kept and the run stops. */
	| {type: 'delete-failed'; name: string; contentId: string; message: string}
	/** The upsert of a file was sent (its transfer began). */
	| {type: 'file-started'; name: string}
	| {type: 'file-upserted'; name: string; contentId: string}
	/** Bytes sent so far by the blob PUT (throttled; the last one has sentBytes === totalBytes). */
	| {type: 'file-progress'; name: string; contentId: string; sentBytes: number; totalBytes: number}
	| {type: 'file-uploaded'; name: string; contentId: string; bytes: number; durationMs: number}
	| {type: 'file-finalized'; name: string; contentId: string}
	/** The file could not be uploaded; without keep-going the workflow stops with the matching error. */
	| {type: 'file-failed'; name: string; contentId?: string; message: string; code?: string}
	/** A request failed and is sent again after `retryInMs` (`file` when it belongs to one file's transfer). */
	| {type: 'retry'; file?: string; operation: string; attempt: number; retryInMs: number; reason: string}
	| {type: 'upload-complete'; files: number; failed: number; bytes: number; durationMs: number; bytesPerSecond: number}
	| {type: 'ingestion-started'; total: number; timeoutMs: number}
	/** A content's ingestion state as last seen; `final` for FINISHED and FAILED…. */
	| {type: 'ingestion-state'; contentId: string; name: string; state: string; final: boolean}
	| {type: 'ingestion-round'; round: number; finished: number; failed: number; total: number; pending: string[]; elapsedMs: number; timeoutMs: number}
	| {type: 'ingestion-complete'; total: number; finished: number; failed: number; elapsedMs: number}
	/** `messageId` when the platform's answer named the message. */
	| {type: 'message-sent'; messageId?: string; text: string}
	/** The assistant reply as it grows while it is still streaming. */
	| {type: 'reply-progress'; text: string; elapsedMs: number}
	| {type: 'reply-complete'; text: string; elapsedMs: number}
	| {type: 'history'; messages: ChatMessageSummary[]}
	/** The end of a run; `failed` lists the files left out under keep-going (empty otherwise); `unchanged` (sync only) the keys skipped. */
	| {type: 'result'; chatId: string; contentIds: string[]; reply: string; failed: FileFailure[]; unchanged?: string[]};

export type UploadEventListener = (event: UploadEvent) => void;
