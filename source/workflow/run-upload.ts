import {stat} from 'node:fs/promises';
import {setTimeout as sleep} from 'node:timers/promises';
import {CancelledError} from '../errors.js';
import type {PlatformClient} from '../platform/client.js';
import {PlatformApiError} from '../platform/errors.js';
import type {Content, Space} from '../platform/types.js';
import {
	BlobUploadError,
	FileUploadError,
	IngestionFailedError,
	IngestionTimeoutError,
	MissingWriteUrlError,
	ReplyTimeoutError,
	WorkflowError,
} from './errors.js';
import type {ChatMessageSummary, SpaceSummary, UploadEventListener} from './events.js';
import {listFolderFiles, type FolderFile} from './files.js';

/** The platform operations the workflow uses. */
export type UploadClient = Pick<PlatformClient,
	'getSpace' | 'createChat' | 'upsertContent' | 'putBlob' | 'searchContent' | 'createSpaceMessage' | 'getLatestMessage' | 'getChatMessages'>;

export const defaultTitle = 'Folder upload session';
export const defaultConcurrency = 4;
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
	/** Files transferred at the same time; 1 uploads strictly one file after another. Default 4. */
	concurrency?: number;
	/** Sleep between ingestion rounds and between reply polls. Default 1000 ms. */
	pollIntervalMs?: number;
	/** Ingestion deadline; default from the file count (spec §8). */
	ingestionTimeoutMs?: number;
	/** Reply deadline. Default 60 000 ms. */
	replyTimeoutMs?: number;
	/** Least time between two progress events of one file. Default 100 ms. */
	progressIntervalMs?: number;
	/** Most content searches in flight during one ingestion round. Default 16. */
	searchParallelism?: number;
	/** Aborting it cancels the workflow: in-flight requests are aborted and CancelledError is thrown. */
	signal?: AbortSignal;
};

export type UploadedFile = FolderFile & {contentId: string};

export type UploadResult = {
	chatId: string;
	/** Content ids in file (name) order. */
	contentIds: string[];
	files: UploadedFile[];
	reply: string;
	history: ChatMessageSummary[];
	space?: SpaceSummary;
};

const siblingFailed = Symbol('a sibling upload failed');

function summarizeSpace(space: Space): SpaceSummary {
	const modules = Array.isArray(space.modules) ? space.modules : [];
	const summary: SpaceSummary = {
		name: typeof space.name === 'string' && space.name ? space.name : '(unnamed)',
		languageModel: typeof space.languageModel === 'string' ? space.languageModel : '(unknown)',
		chatUpload: space.chatUpload === undefined || space.chatUpload === null ? '(unknown)' : String(space.chatUpload),
		modules: modules.map(module => (module && typeof module.name === 'string' ? module.name : String(module))),
	};
	if (typeof space.id === 'string') {
		summary.id = space.id;
	}

	return summary;
}

function errorMessage(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

/** A signal that aborts with `signal` or when `ms` have passed; `expired()` tells which. */
function until(signal: AbortSignal, ms: number): {signal: AbortSignal; expired: () => boolean} {
	const timeout = AbortSignal.timeout(Math.max(0, Math.ceil(ms)));
	return {signal: AbortSignal.any([signal, timeout]), expired: () => timeout.aborted && !signal.aborted};
}

/** Runs `task` over `items` with at most `limit` in flight; the first failure rejects at once. */
async function eachLimit<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
	let next = 0;
	let failed = false;
	const worker = async (): Promise<void> => {
		while (!failed && next < items.length) {
			const item = items[next++] as T;
			try {
				// eslint-disable-next-line no-await-in-loop
				await task(item);
			} catch (error) {
				failed = true;
				throw error;
			}
		}
	};

	await Promise.all(Array.from({length: Math.min(limit, items.length)}, worker));
}

/**
 * The space-chat workflow of spec §4.3: list the folder, show the space, create a chat, upload
 * every file into it (upsert, PUT, finalize; up to `concurrency` at a time), wait for ingestion,
 * send the prompt, wait for the complete reply and fetch the chat history. Progress is reported
 * through `onEvent`; the last event is `result`.
 */
export async function runUpload(options: UploadOptions, onEvent: UploadEventListener = () => {}): Promise<UploadResult> {
	const external = options.signal ?? new AbortController().signal;
	try {
		return await run(options, external, onEvent);
	} catch (error) {
		if (external.aborted) {
			throw new CancelledError();
		}

		throw error;
	}
}

async function run(options: UploadOptions, signal: AbortSignal, emit: UploadEventListener): Promise<UploadResult> {
	const {client, assistantId, prompt} = options;
	const title = options.title ?? defaultTitle;
	const concurrency = Math.max(1, Math.floor(options.concurrency ?? defaultConcurrency));
	const pollIntervalMs = Math.max(0, options.pollIntervalMs ?? defaultPollIntervalMs);
	const replyTimeoutMs = options.replyTimeoutMs ?? defaultReplyTimeoutMs;
	const progressIntervalMs = options.progressIntervalMs ?? 100;

	// The folder is checked before anything is created on the platform.
	const files = await listFolderFiles(options.folder);
	emit({
		type: 'files-listed',
		folder: options.folder,
		files: files.map(file => ({name: file.name, size: file.size, mimeType: file.mimeType})),
		totalBytes: files.reduce((sum, file) => sum + file.size, 0),
	});
	signal.throwIfAborted();

	let space: SpaceSummary | undefined;
	try {
		space = summarizeSpace(await client.getSpace(assistantId, {signal}));
		emit({type: 'space-loaded', space});
	} catch (error) {
		signal.throwIfAborted();
		emit({type: 'space-warning', message: `Could not load space ${assistantId}: ${errorMessage(error).replace(/\.$/, '')}; going on without it`});
	}

	emit({type: 'chat-creating', title});
	const chatStarted = performance.now();
	const chat = await client.createChat({title, assistantId}, {signal});
	const chatId = chat.id;
	emit({type: 'chat-created', chatId, title: chat.title ?? title, durationMs: Math.round(performance.now() - chatStarted)});

	const uploaded = await uploadFiles({client, files, chatId, concurrency, progressIntervalMs, signal, emit});
	const contentIds = uploaded.map(file => file.contentId);

	await waitForIngestion({
		client,
		chatId,
		files: uploaded,
		pollIntervalMs,
		timeoutMs: options.ingestionTimeoutMs ?? defaultIngestionTimeoutMs(uploaded.length),
		parallelism: Math.max(1, options.searchParallelism ?? 16),
		signal,
		emit,
	});

	const reply = await askAndWait({client, assistantId, chatId, prompt, pollIntervalMs, timeoutMs: replyTimeoutMs, signal, emit});

	const {messages} = await client.getChatMessages(chatId, {signal});
	const history = (Array.isArray(messages) ? messages : []).map(message => ({role: String(message.role ?? ''), text: message.text ?? ''}));
	emit({type: 'history', messages: history});
	emit({type: 'result', chatId, contentIds, reply});
	const result: UploadResult = {chatId, contentIds, files: uploaded, reply, history};
	if (space) {
		result.space = space;
	}

	return result;
}

type Emit = UploadEventListener;

async function uploadFiles(options: {
	client: UploadClient;
	files: FolderFile[];
	chatId: string;
	concurrency: number;
	progressIntervalMs: number;
	signal: AbortSignal;
	emit: Emit;
}): Promise<UploadedFile[]> {
	const {client, files, chatId, emit} = options;
	const stopRest = new AbortController();
	const signal = AbortSignal.any([options.signal, stopRest.signal]);
	const contentIds: string[] = [];
	let firstError: unknown;
	let next = 0;
	let bytes = 0;
	const started = performance.now();

	const uploadOne = async (file: FolderFile): Promise<string> => {
		const input = {key: file.name, title: file.name, mimeType: file.mimeType};
		let content: Content | undefined;
		try {
			content = await client.upsertContent({input, chatId}, {signal});
			const contentId = content.id;
			emit({type: 'file-upserted', name: file.name, contentId});
			const {writeUrl} = content;
			if (typeof writeUrl !== 'string' || writeUrl.trim() === '') {
				throw new MissingWriteUrlError(file.name, contentId);
			}

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
						if (sentBytes === totalBytes || now - lastProgress >= options.progressIntervalMs) {
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

			bytes += size;
			emit({type: 'file-uploaded', name: file.name, contentId, bytes: size, durationMs: Math.round(performance.now() - putStarted)});
			const readUrl = typeof content.readUrl === 'string' && content.readUrl ? content.readUrl : undefined;
			await client.upsertContent({input: {...input, byteSize: size}, chatId, ...(readUrl ? {fileUrl: readUrl} : {})}, {signal});
			emit({type: 'file-finalized', name: file.name, contentId});
			return contentId;
		} catch (error) {
			if (signal.aborted) {
				throw error;
			}

			const failure = error instanceof WorkflowError ? error : new FileUploadError(file.name, error);
			const event: {type: 'file-failed'; name: string; contentId?: string; message: string} = {type: 'file-failed', name: file.name, message: failure.message};
			if (content?.id) {
				event.contentId = content.id;
			}

			emit(event);
			throw failure;
		}
	};

	// Each worker takes the next file in name order, so upserts start in that order; with one
	// worker a file is upserted, sent and finalized before the next one starts.
	const worker = async (): Promise<void> => {
		while (!signal.aborted && next < files.length) {
			const index = next++;
			const file = files[index] as FolderFile;
			try {
				// eslint-disable-next-line no-await-in-loop
				contentIds[index] = await uploadOne(file);
			} catch (error) {
				if (!stopRest.signal.aborted && !options.signal.aborted) {
					firstError = error;
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
		files: files.length,
		bytes,
		durationMs: Math.round(durationMs),
		bytesPerSecond: durationMs > 0 ? Math.round(bytes / (durationMs / 1000)) : bytes,
	});
	return files.map((file, index) => ({...file, contentId: contentIds[index] as string}));
}

async function waitForIngestion(options: {
	client: UploadClient;
	chatId: string;
	files: UploadedFile[];
	pollIntervalMs: number;
	timeoutMs: number;
	parallelism: number;
	signal: AbortSignal;
	emit: Emit;
}): Promise<void> {
	const {client, chatId, files, signal, emit, timeoutMs} = options;
	const names = new Map(files.map(file => [file.contentId, file.name]));
	const pending = new Set(files.map(file => file.contentId));
	const lastState = new Map<string, string>();
	const started = performance.now();
	const elapsed = (): number => performance.now() - started;
	emit({type: 'ingestion-started', total: files.length, timeoutMs});
	for (let round = 1; pending.size > 0; round++) {
		const deadline = until(signal, timeoutMs - elapsed());
		const stopRound = new AbortController();
		const roundSignal = AbortSignal.any([deadline.signal, stopRound.signal]);
		try {
			// eslint-disable-next-line no-await-in-loop
			await eachLimit([...pending], options.parallelism, async contentId => {
				const found = await client.searchContent({where: {id: {equals: contentId}}, chatId, includeFailedContent: true}, {signal: roundSignal});
				const records = Array.isArray(found) ? found : [];
				const record = records.find(item => item?.id === contentId) ?? records[0];
				if (!record) {
					return;
				}

				const state = typeof record.ingestionState === 'string' ? record.ingestionState : '';
				const name = names.get(contentId) ?? contentId;
				const failed = state.startsWith('FAILED');
				if (state !== '' && lastState.get(contentId) !== state) {
					lastState.set(contentId, state);
					emit({type: 'ingestion-state', contentId, name, state, final: state === 'FINISHED' || failed});
				}

				if (state === 'FINISHED') {
					pending.delete(contentId);
				} else if (failed) {
					throw new IngestionFailedError(contentId, name, state);
				}
			});
		} catch (error) {
			stopRound.abort();
			if (deadline.expired()) {
				throw new IngestionTimeoutError([...pending], timeoutMs);
			}

			throw error;
		}

		emit({
			type: 'ingestion-round',
			round,
			finished: files.length - pending.size,
			total: files.length,
			pending: [...pending],
			elapsedMs: Math.round(elapsed()),
			timeoutMs,
		});
		if (pending.size === 0) {
			break;
		}

		const remaining = timeoutMs - elapsed();
		if (remaining <= 0) {
			throw new IngestionTimeoutError([...pending], timeoutMs);
		}

		// eslint-disable-next-line no-await-in-loop
		await sleep(Math.min(options.pollIntervalMs, remaining), undefined, {signal});
	}

	emit({type: 'ingestion-complete', total: files.length, elapsedMs: Math.round(elapsed())});
}

async function askAndWait(options: {
	client: UploadClient;
	assistantId: string;
	chatId: string;
	prompt: string;
	pollIntervalMs: number;
	timeoutMs: number;
	signal: AbortSignal;
	emit: Emit;
}): Promise<string> {
	const {client, chatId, signal, emit, timeoutMs} = options;
	const sent = await client.createSpaceMessage({assistantId: options.assistantId, chatId, text: options.prompt}, {signal});
	emit({type: 'message-sent', messageId: sent?.id ?? '', text: options.prompt});
	const started = performance.now();
	const elapsed = (): number => performance.now() - started;
	let shown = '';
	for (;;) {
		const deadline = until(signal, timeoutMs - elapsed());
		let latest;
		try {
			// eslint-disable-next-line no-await-in-loop
			latest = await client.getLatestMessage(chatId, {signal: deadline.signal});
		} catch (error) {
			if (deadline.expired()) {
				throw new ReplyTimeoutError(chatId, timeoutMs);
			}

			throw error;
		}

		// The user's own message is not the reply, whatever its streaming fields say.
		if (latest && (!sent?.id || latest.id !== sent.id)) {
			const text = typeof latest.text === 'string' ? latest.text : '';
			if (latest.stoppedStreamingAt !== null && latest.stoppedStreamingAt !== undefined) {
				emit({type: 'reply-complete', text, elapsedMs: Math.round(elapsed())});
				return text;
			}

			if (text !== shown) {
				shown = text;
				emit({type: 'reply-progress', text, elapsedMs: Math.round(elapsed())});
			}
		}

		const remaining = timeoutMs - elapsed();
		if (remaining <= 0) {
			throw new ReplyTimeoutError(chatId, timeoutMs);
		}

		// eslint-disable-next-line no-await-in-loop
		await sleep(Math.min(options.pollIntervalMs, remaining), undefined, {signal});
	}
}
