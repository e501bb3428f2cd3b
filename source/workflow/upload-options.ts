/** What the space-chat workflow (run-upload.ts) takes and gives back. */
import type {FileFailure} from './errors.js';
import type {ChatMessageSummary, SpaceSummary} from './events.js';
import type {FolderScan} from './files.js';
import type {DeletionOptions} from './deletions.js';
import type {RetryTracker} from './retries.js';
import type {Selection} from './select.js';
import type {UploadedFile} from './transfer.js';
import type {UploadClient} from './types.js';

export type UploadOptions = {
	client: UploadClient;
	folder: string;
	prompt: string;
	assistantId: string;
	/** Chat title; default "Folder upload session". */
	title?: string;
	/** Files transferred at the same time; 1 uploads strictly one file after another. Default 16. */
	concurrency?: number;
	/** Sleep between ingestion rounds and between reply polls. Default 1000 ms. */
	pollIntervalMs?: number;
	/** Wait between sending the prompt and the first reply poll. Default 0: polled at once, as the SDK's send_message_and_wait_for_completion does. */
	firstReplyPollMs?: number;
	/** Ingestion deadline; default from the file count (spec §8). */
	ingestionTimeoutMs?: number;
	/** Reply deadline. Default 60 000 ms. */
	replyTimeoutMs?: number;
	/** Least time between two progress events of one file. Default 100 ms. */
	progressIntervalMs?: number;
	/**
	 * Most content searches in flight during one ingestion round. Default 64: a round of up to 64
	 * pending files takes one round trip, so the round that sees the last file FINISHED ends one
	 * round trip after it (not four, as with 16 for 60 files).
	 */
	searchParallelism?: number;
	/** Files that fail (upload or ingestion) are left out and reported; the rest goes on. */
	keepGoing?: boolean;
	/** Turns the client's retries into `retry` events (its onRequest must feed the tracker). */
	retries?: RetryTracker;
	/** Aborting it cancels the workflow: in-flight requests are aborted and CancelledError is thrown. */
	signal?: AbortSignal;
	/** Upload into this existing chat (checked first) instead of creating one; needs `manifest`. */
	chatId?: string;
	/** Subfolders and include/exclude globs; none: the folder's own files (spec §4.3). */
	selection?: Selection;
	/**
	 * The folder as the caller already listed it with `selectFiles(folder, selection)` (to fail before
	 * starting anything); listed here when absent. The folder is read once either way.
	 */
	listing?: FolderScan;
	/**
	 * Where the manifest of a chat lives (and the platform it describes): checked writable before
	 * any platform call, written after each file is finalized. Without it (the in-process local
	 * platform, whose chats end with the process) no manifest is read or written.
	 */
	manifest?: ManifestPlace;
	/** `--delete`, `--delete-excluded`, `--max-delete` (an existing chat with a manifest only). */
	deletion?: DeletionOptions;
};

/** `profile`: the settings profile the run uses, recorded in the manifest (config/profile.ts). */
export type ManifestPlace = {baseUrl: string; dataDir: string; file(chatId: string): string; profile?: string};

export type UploadResult = {
	chatId: string;
	/** Keys skipped because their content was unchanged and FINISHED (sync only). */
	unchanged: string[];
	/** Content ids of the files that were ingested, in file (name) order. */
	contentIds: string[];
	files: UploadedFile[];
	/** Files left out under keep-going; empty otherwise. */
	failed: FileFailure[];
	reply: string;
	history: ChatMessageSummary[];
	space?: SpaceSummary;
};
