import {CancelledError} from '../errors.js';
import {chatHistory} from './open-chat.js';
import {NothingIngestedError, type FileFailure} from './errors.js';
import type {UploadEventListener} from './events.js';
import {firstRoundDelay, waitForIngestion} from './ingestion.js';
import type {SyncManifest} from './manifest.js';
import {deleteContents} from './deletions.js';
import {prepareRun, type Prepared} from './prepare-upload.js';
import {askAndWait} from './reply.js';
import {noteStates, recorder} from './sync.js';
import {uploadFiles, type UploadedFile} from './transfer.js';
import type {UploadOptions, UploadResult} from './upload-options.js';

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

export type {ManifestPlace, UploadOptions, UploadResult} from './upload-options.js';

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

type Sent = {failed: FileFailure[]; ingested: UploadedFile[]; unchanged: UploadedFile[]};

/**
 * Sends what the plan asks (every file without one), deletes what it drops, waits for ingestion;
 * what is in the chat now, in file (name) order, and what failed.
 */
async function sendAndIngest(options: UploadOptions, {files, chatId, manifest, deletions, plan}: Prepared, signal: AbortSignal, emit: UploadEventListener): Promise<Sent> {
	const {client} = options;
	const concurrency = Math.max(1, Math.floor(options.concurrency ?? defaultConcurrency));
	const keepGoing = options.keepGoing ?? false;
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
	return {failed, ingested, unchanged};
}

async function run(options: UploadOptions, signal: AbortSignal, emit: UploadEventListener): Promise<UploadResult> {
	const {client, assistantId, prompt} = options;
	const pollIntervalMs = Math.max(0, options.pollIntervalMs ?? defaultPollIntervalMs);
	const prepared = await prepareRun(options, options.title ?? defaultTitle, signal, emit);
	const {chatId, space, plan, syncing} = prepared;
	const {failed, ingested, unchanged} = await sendAndIngest(options, prepared, signal, emit);
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
