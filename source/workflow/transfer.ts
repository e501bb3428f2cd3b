/** Step 2 of spec §4.3: every file upserted, sent to its writeUrl and finalized, a few at a time. */
import {stat} from 'node:fs/promises';
import {PlatformApiError} from '../platform/errors.js';
import type {Content} from '../platform/types.js';
import {errorCode} from '../format/value.js';
import {BlobUploadError, FileUploadError, MissingWriteUrlError, WorkflowError, type FileFailure} from './errors.js';
import type {UploadEventListener} from './events.js';
import type {FolderFile} from './files.js';
import type {RetryTracker} from './retries.js';
import type {UploadClient} from './types.js';

export type UploadedFile = FolderFile & {contentId: string};

export type TransferResult = {uploaded: UploadedFile[]; failed: FileFailure[]};

const siblingFailed = Symbol('a sibling upload failed');

/** A short reason for a file failure, for the result's list of failed files. */
export function failureReason(error: unknown): string {
	if (error instanceof BlobUploadError) {
		return `HTTP ${error.status} from the blob store${error.detail ? ` (${error.detail})` : ''}`;
	}

	if (error instanceof MissingWriteUrlError) {
		return 'no writeUrl in the upsert answer';
	}

	if (error instanceof FileUploadError && error.cause instanceof PlatformApiError) {
		return `HTTP ${error.cause.status}: ${error.cause.platformMessage}`;
	}

	const detail = error instanceof WorkflowError ? (error as WorkflowError).data.detail : undefined;
	return typeof detail === 'string' ? detail : (errorCode(error) ?? 'failed');
}

/** What uploading one file needs: the run's client, chat, signal and listener, and where its failures and bytes are counted. */
type OneUpload = {
	client: UploadClient;
	chatId: string;
	signal: AbortSignal;
	emit: UploadEventListener;
	progressIntervalMs: number;
	failed: FileFailure[];
	sent: (bytes: number) => void;
	onFinalized?: (file: FolderFile, contentId: string, size: number) => Promise<void>;
};

/** The PUT of one file's bytes to its write URL, progress at most once per interval; resolves to the size sent. */
async function sendBlob(context: OneUpload, file: FolderFile, writeUrl: string, contentId: string): Promise<number> {
	const {client, signal, emit} = context;
	// The size is read again: the file may have changed since the folder was listed.
	const size = (await stat(file.path)).size;
	let lastProgress = Number.NEGATIVE_INFINITY;
	const putStarted = performance.now();
	try {
		await client.putBlob(writeUrl, {
			filePath: file.path,
			contentType: file.mimeType,
			size,
			signal,
			onProgress(sentBytes, totalBytes) {
				const now = performance.now();
				if (sentBytes === totalBytes || now - lastProgress >= context.progressIntervalMs) {
					lastProgress = now;
					emit({type: 'file-progress', name: file.name, contentId, sentBytes, totalBytes});
				}
			},
		});
	} catch (error) {
		if (error instanceof PlatformApiError && error.method === 'PUT') {
			throw new BlobUploadError(file.name, error.status, error.platformMessage);
		}

		throw error;
	}

	context.sent(size);
	emit({type: 'file-uploaded', name: file.name, contentId, bytes: size, durationMs: Math.round(performance.now() - putStarted)});
	return size;
}

/** One file: upsert, PUT, finalize; a failure is counted, said and thrown. */
async function uploadOne(context: OneUpload, file: FolderFile): Promise<string> {
	const {client, chatId, signal, emit, failed} = context;
	const input = {key: file.name, title: file.name, mimeType: file.mimeType};
	let content: Content | undefined;
	emit({type: 'file-started', name: file.name});
	try {
		content = await client.upsertContent({input, chatId}, {signal});
		// The answer schema guarantees a non-empty id; writeUrl may be null or empty.
		const contentId = content.id;
		emit({type: 'file-upserted', name: file.name, contentId});
		const {writeUrl} = content;
		if (!writeUrl?.trim()) {
			throw new MissingWriteUrlError(file.name, contentId);
		}

		const size = await sendBlob(context, file, writeUrl, contentId);
		const readUrl = content.readUrl || undefined;
		await client.finalizeContent({input: {...input, byteSize: size}, chatId, ...(readUrl ? {fileUrl: readUrl} : {})}, {signal});
		await context.onFinalized?.(file, contentId, size);
		emit({type: 'file-finalized', name: file.name, contentId});
		return contentId;
	} catch (error) {
		if (signal.aborted) {
			throw error;
		}

		const failure: WorkflowError = error instanceof WorkflowError ? error as WorkflowError : new FileUploadError(file.name, error);
		const contentId = content?.id;
		emit({type: 'file-failed', name: file.name, ...(contentId ? {contentId} : {}), message: failure.message, code: failure.code});
		failed.push({name: file.name, ...(contentId ? {contentId} : {}), stage: 'upload', reason: failureReason(failure)});
		throw failure;
	}
}

export async function uploadFiles(options: {
	client: UploadClient;
	files: FolderFile[];
	chatId: string;
	concurrency: number;
	progressIntervalMs: number;
	keepGoing: boolean;
	retries: RetryTracker | undefined;
	signal: AbortSignal;
	emit: UploadEventListener;
	/** Awaited after each finalize, before the file counts as finalized (the sync manifest is written here). */
	onFinalized?: (file: FolderFile, contentId: string, size: number) => Promise<void>;
}): Promise<TransferResult> {
	const {client, files, chatId, emit} = options;
	const stopRest = new AbortController();
	const signal = AbortSignal.any([options.signal, stopRest.signal]);
	const contentIds: Array<string | undefined> = [];
	const failed: FileFailure[] = [];
	let firstError: Error | undefined;
	let next = 0;
	let bytes = 0;
	const started = performance.now();

	const one: OneUpload = {client, chatId, signal, emit, progressIntervalMs: options.progressIntervalMs, failed, sent(size) {
		bytes += size;
	}, ...(options.onFinalized ? {onFinalized: options.onFinalized} : {})};
	const run = async (file: FolderFile): Promise<string> => (options.retries ? options.retries.forFile(file.name, async () => uploadOne(one, file)) : uploadOne(one, file));

	// Each worker takes the next file in name order, so upserts start in that order; with one
	// worker a file is upserted, sent and finalized before the next one starts.
	const worker = async (): Promise<void> => {
		for (let index = next++, file = files[index]; !signal.aborted && file !== undefined; index = next++, file = files[index]) {
			try {
				contentIds[index] = await run(file);
			} catch (error) {
				if (options.keepGoing && !options.signal.aborted) {
					continue;
				}

				if (!stopRest.signal.aborted && !options.signal.aborted) {
					firstError = error instanceof Error ? error : new Error(String(error));
					stopRest.abort(siblingFailed);
				}

				return;
			}
		}
	};

	await Promise.all(Array.from({length: Math.min(options.concurrency, files.length)}, worker));
	options.signal.throwIfAborted();
	if (firstError !== undefined) {
		throw firstError;
	}

	const durationMs = performance.now() - started;
	emit({
		type: 'upload-complete',
		files: files.length - failed.length,
		failed: failed.length,
		bytes,
		durationMs: Math.round(durationMs),
		bytesPerSecond: durationMs > 0 ? Math.round(bytes / (durationMs / 1000)) : bytes,
	});
	const uploaded = files.flatMap((file, index) => {
		const contentId = contentIds[index];
		return contentId === undefined ? [] : [{...file, contentId}];
	});
	return {uploaded, failed};
}
