import {CancelledError} from '../errors.js';
import {chatHistory, openChat} from './open-chat.js';
import path from 'node:path';
import {NothingIngestedError, type FileFailure} from './errors.js';
import type {ChatMessageSummary, SpaceSummary, UploadEventListener} from './events.js';
import {checkReadable, type FolderFile, type FolderScan, type SkippedEntry} from './files.js';
import {firstRoundDelay, waitForIngestion} from './ingestion.js';
import {checkWritable, SyncManifest} from './manifest.js';
import {deleteContents, planDeletions, type Deletion, type DeletionOptions} from './deletions.js';
import {askAndWait} from './reply.js';
import type {RetryTracker} from './retries.js';
import {isPlainSelection, selectFiles, type Selection} from './select.js';
import {hashFiles, noteStates, planEvent, planSync, recorder} from './sync.js';
import {uploadFiles, type UploadedFile} from './transfer.js';
import type {UploadClient} from './types.js';

export type {UploadClient} from './types.js';
export type {UploadedFile} from './transfer.js';

export const defaultTitle = 'Folder upload session';
export const defaultConcurrency = 16;
export const defaultPollIntervalMs = 1000;
export const defaultReplyTimeoutMs = 60_000;

/** Spec §8: min(60 + 20 × max(N − 1, 0), 120) seconds for N uploaded files. */
export function defaultIngestionTimeoutMs(fileCount: number): number {
	return Math.min(60 + (20 * Math.max(fileCount - 1, 0)), 120) * 1000;
}

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

/**
 * The space-chat workflow of spec §4.3: list the folder and check every file opens, show the
 * space, create a chat, upload every file into it (upsert, PUT, finalize; up to `concurrency` at
 * a time), wait for ingestion, send the prompt, wait for the complete reply and fetch the chat
 * history. Progress is reported through `onEvent`; the last event is `result`.
 */
export async function runUpload(options: UploadOptions, onEvent: UploadEventListener = () => {}): Promise<UploadResult> {
	const external = options.signal ?? new AbortController().signal;
	options.retries?.listen(onEvent);
	try {
		return await run(options, external, onEvent);
	} catch (error) {
		if (external.aborted) {
			throw new CancelledError();
		}

		throw error;
	}
}

/** The files held back by --min-age: still there, so never deleted. */
function listedKept(skipped: readonly SkippedEntry[]): string[] {
	return skipped.filter(entry => entry.kind === 'too-recent').map(entry => entry.name);
}

/** The manifest of the chat being synced (none for a new chat) and the deletions it plans; where it will be written must be writable. */
async function openManifest(options: UploadOptions, files: readonly FolderFile[], skipped: readonly SkippedEntry[]): Promise<{manifest: SyncManifest | undefined; deletions: Deletion[]}> {
	const place = options.manifest;
	const existing = options.chatId;
	if (!place) {
		return {manifest: undefined, deletions: []};
	}

	await checkWritable(place.dataDir, path.dirname(place.file(existing ?? 'chat')));
	if (existing === undefined) {
		return {manifest: undefined, deletions: []};
	}

	const manifest = await SyncManifest.open(place.file(existing), place.baseUrl, existing);
	const deletions = await planDeletions({manifest, folder: options.folder, selected: files.map(file => file.name), kept: listedKept(skipped), deletion: options.deletion});
	return {manifest, deletions};
}

/** The files of the folder (or the listing given), each checked to open; `files-listed` says what they are. */
async function listFiles(options: UploadOptions, emit: UploadEventListener): Promise<FolderScan> {
	const {files, skipped} = options.listing ?? await selectFiles(options.folder, options.selection);
	await checkReadable(options.folder, files);
	emit({
		type: 'files-listed',
		folder: options.folder,
		files: files.map(file => ({name: file.name, size: file.size, mimeType: file.mimeType})),
		totalBytes: files.reduce((sum, file) => sum + file.size, 0),
		skipped,
	});
	return {files, skipped};
}

type Ingest = {chatId: string; waiting: UploadedFile[]; manifest: SyncManifest | undefined; firstFinalizedAt: number | undefined; signal: AbortSignal; emit: UploadEventListener};

/** Waits for the uploaded (and still awaited) files to be ingested; the manifest notes each state and is saved after. */
async function ingest(options: UploadOptions, {chatId, waiting, manifest, firstFinalizedAt, signal, emit}: Ingest): Promise<FileFailure[]> {
	const pollIntervalMs = Math.max(0, options.pollIntervalMs ?? defaultPollIntervalMs);
	return waitForIngestion({
		client: options.client,
		chatId,
		files: waiting,
		pollIntervalMs,
		timeoutMs: options.ingestionTimeoutMs ?? defaultIngestionTimeoutMs(waiting.length),
		parallelism: Math.max(1, options.searchParallelism ?? 64),
		keepGoing: options.keepGoing ?? false,
		signal,
		emit: manifest ? noteStates(manifest, emit) : emit,
		// Ingestion polls one interval apart, counted from when the first file was handed over.
		firstRoundAt: firstFinalizedAt === undefined ? undefined : firstFinalizedAt + firstRoundDelay(pollIntervalMs),
	}).finally(async () => manifest?.save().catch(() => undefined));
}

async function run(options: UploadOptions, signal: AbortSignal, emit: UploadEventListener): Promise<UploadResult> {
	const {client, assistantId, prompt} = options;
	const title = options.title ?? defaultTitle;
	const concurrency = Math.max(1, Math.floor(options.concurrency ?? defaultConcurrency));
	const pollIntervalMs = Math.max(0, options.pollIntervalMs ?? defaultPollIntervalMs);
	const keepGoing = options.keepGoing ?? false;

	// The folder and every file in it are checked before anything is created on the platform.
	const {files, skipped} = await listFiles(options, emit);
	signal.throwIfAborted();
	const existing = options.chatId;
	// An unwritable data directory, a damaged manifest or too many deletions stop the run before any platform call.
	const opened = await openManifest(options, files, skipped);
	const {deletions} = opened;
	let {manifest} = opened;

	// The files are hashed while the chat is created or checked (the plan needs both); a read error surfaces there.
	const hashing = options.manifest ? hashFiles(files) : undefined;
	hashing?.catch(() => undefined);

	const {chatId, space} = await openChat(options, title, signal, emit);

	// The sync panel shows for what a sync flag asks; a plain upload keeps its manifest quietly.
	const syncing = existing !== undefined || !isPlainSelection(options.selection ?? {}) || deletions.length > 0;
	if (options.manifest && manifest === undefined) {
		manifest = SyncManifest.empty(options.manifest.file(chatId), options.manifest.baseUrl, chatId);
	}

	// The manifest names its folder and profile, so `chats` can list what this machine synced.
	manifest?.describe({folder: path.resolve(options.folder), ...(options.manifest?.profile === undefined ? {} : {profile: options.manifest.profile})});

	// Every run with a manifest hashes its files, so each one finalized is recorded with its bytes' hash.
	const plan = syncing || manifest ? await planSync(files, manifest, {client, chatId, parallelism: Math.max(1, options.searchParallelism ?? 64), signal, existing: existing !== undefined, ...(hashing ? {hashing} : {})}) : undefined;
	if (plan && syncing) {
		emit(planEvent(plan, {chatId, ...(manifest ? {manifest: manifest.file} : {}), dryRun: false, deletions}));
	}

	const sendNames = new Set(plan ? [...plan.upload, ...plan.replace].map(file => file.name) : files.map(file => file.name));
	const sending = files.filter(file => sendNames.has(file.name));
	let firstFinalizedAt: number | undefined;
	const transferEmit: UploadEventListener = event => {
		if (event.type === 'file-finalized') {
			firstFinalizedAt ??= performance.now();
		}

		emit(event);
	};

	const transfer = plan && sending.length === 0 ? {uploaded: [], failed: []} : await uploadFiles({
		client, files: sending, chatId, concurrency, progressIntervalMs: options.progressIntervalMs ?? 100, keepGoing, retries: options.retries, signal, emit: transferEmit,
		...(manifest ? {onFinalized: recorder(manifest, plan)} : {}),
	});
	if (manifest && deletions.length > 0) {
		await deleteContents({client, manifest, deletions, parallelism: 4, signal, emit});
	}

	const waiting: UploadedFile[] = [...transfer.uploaded, ...(plan?.awaiting ?? [])];
	const ingestionFailed = waiting.length === 0 ? [] : await ingest(options, {chatId, waiting, manifest, firstFinalizedAt, signal, emit});
	const failed = [...transfer.failed, ...ingestionFailed];
	const failedIds = new Set(ingestionFailed.map(failure => failure.contentId));
	const unchanged = plan?.unchanged ?? [];
	// In file (name) order: what was ingested now and what was already there.
	const inChat = new Map([...waiting, ...unchanged].filter(file => !failedIds.has(file.contentId)).map(file => [file.name, file]));
	const ingested: UploadedFile[] = files.flatMap(file => inChat.get(file.name) ?? []);
	if (ingested.length === 0) {
		throw new NothingIngestedError(chatId, failed);
	}

	const reply = await askAndWait({
		client,
		assistantId,
		chatId,
		prompt,
		pollIntervalMs,
		firstPollMs: options.firstReplyPollMs ?? 0,
		timeoutMs: options.replyTimeoutMs ?? defaultReplyTimeoutMs,
		signal,
		emit,
	});

	const history = await chatHistory(client, chatId, signal);
	emit({type: 'history', messages: history});
	const contentIds = ingested.map(file => file.contentId);
	const unchangedKeys = unchanged.map(file => file.name);
	emit({type: 'result', chatId, contentIds, reply, failed, ...(plan && syncing ? {unchanged: unchangedKeys} : {})});
	const result: UploadResult = {chatId, unchanged: unchangedKeys, contentIds, files: ingested, failed, reply, history};
	if (!(space instanceof Error)) {
		result.space = space;
	}

	return result;
}

