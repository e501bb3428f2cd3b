import type {FileFailure} from '../../workflow/errors.js';
import type {ChatMessageSummary, SpaceSummary, UploadEvent} from '../../workflow/events.js';
import type {SkippedEntry} from '../../workflow/files.js';

/** The upload screen's model: a pure reduction of the workflow's events. */

export type FilePhase = 'waiting' | 'upserting' | 'uploading' | 'finalizing' | 'ingesting' | 'finished' | 'failed';

export type FileRow = {
	name: string;
	size: number;
	mimeType: string;
	contentId?: string;
	phase: FilePhase;
	sentBytes: number;
	/** The bytes are in the blob store (set at file-uploaded, kept if ingestion fails later). */
	uploaded: boolean;
	/** Last ingestion state seen. */
	state?: string;
	error?: string;
	/** A retry is pending for this file's request. */
	retry?: {inMs: number; reason: string; at: number};
};

/** Things that are final, printed once above the live area, in the order they happened. */
export type StaticItem =
	| {kind: 'file'; key: string; row: FileRow}
	| {kind: 'banner'; key: string; text: string}
	| {kind: 'space'; key: string; space: SpaceSummary}
	| {kind: 'space-warning'; key: string; message: string}
	| {kind: 'chat'; key: string; chatId: string; title: string; elapsedMs: number}
	| {kind: 'skipped'; key: string; skipped: SkippedEntry[]}
	| {kind: 'ingestion'; key: string; finished: number; failed: number; total: number; elapsedMs: number}
	| {kind: 'reply'; key: string; text: string; elapsedMs: number}
	| {kind: 'history'; key: string; messages: ChatMessageSummary[]};

export type UploadViewState = {
	/** Date.now() when the run started; the screen's clock. */
	startedAt: number;
	folder?: string;
	space?: SpaceSummary;
	spaceWarning?: string;
	chat: {status: 'waiting' | 'creating' | 'created'; id?: string; title?: string; createdAt?: number};
	files: FileRow[];
	totalBytes: number;
	sentBytes: number;
	uploadStartedAt?: number;
	uploadEndedAt?: number;
	ingestion: {status: 'waiting' | 'running' | 'done'; total: number; timeoutMs?: number; startedAt?: number; endedAt?: number; round: number};
	reply: {status: 'waiting' | 'sent' | 'streaming' | 'done'; prompt?: string; text: string; sentAt?: number; elapsedMs?: number};
	history?: ChatMessageSummary[];
	/** Final things (rows ✔/✖, space, chat, reply, history), in the order they became final; append-only for <Static>. */
	finished: StaticItem[];
	/** The last retry of a request that belongs to no one file (ingestion checks, reply polls). */
	retry?: {operation: string; inMs: number; reason: string; at: number};
	result?: {chatId: string; contentIds: string[]; reply: string; failed: FileFailure[]};
	error?: string;
	cancelled: boolean;
	/** Ended: result, error or cancelled. */
	done: boolean;
	endedAt?: number;
};

export function initialUploadState(startedAt: number, prompt?: string, banner?: string): UploadViewState {
	return {
		startedAt,
		chat: {status: 'waiting'},
		files: [],
		totalBytes: 0,
		sentBytes: 0,
		ingestion: {status: 'waiting', total: 0, round: 0},
		reply: prompt === undefined ? {status: 'waiting', text: ''} : {status: 'waiting', prompt, text: ''},
		finished: banner === undefined ? [] : [{kind: 'banner', key: '\u0000banner', text: banner}],
		cancelled: false,
		done: false,
	};
}

function updateFile(state: UploadViewState, name: string, change: (row: FileRow) => FileRow): UploadViewState {
	let finishedRow: FileRow | undefined;
	const files = state.files.map(row => {
		if (row.name !== name) {
			return row;
		}

		const next = {...change(row)};
		if (next.retry && next.retry === row.retry && next.phase !== row.phase) {
			delete next.retry;
		}

		const wasFinal = row.phase === 'finished' || row.phase === 'failed';
		const isFinal = next.phase === 'finished' || next.phase === 'failed';
		if (!wasFinal && isFinal) {
			finishedRow = next;
		}

		return next;
	});
	const finished = finishedRow ? [...state.finished, {kind: 'file' as const, key: name, row: finishedRow}] : state.finished;
	return {...state, files, finished};
}

function addStatic(state: UploadViewState, item: StaticItem): UploadViewState {
	return {...state, finished: [...state.finished, item]};
}

/** The counters of the files line and the ingestion line, from the one list of rows. */
export type FileCounts = {total: number; waiting: number; transferring: number; uploaded: number; ingesting: number; finished: number; failed: number; uploadFailed: number};

export function countFiles(files: readonly FileRow[]): FileCounts {
	const counts: FileCounts = {total: files.length, waiting: 0, transferring: 0, uploaded: 0, ingesting: 0, finished: 0, failed: 0, uploadFailed: 0};
	for (const row of files) {
		if (row.uploaded) {
			counts.uploaded++;
		}

		switch (row.phase) {
			case 'waiting': {
				counts.waiting++;
				break;
			}

			case 'ingesting': {
				counts.ingesting++;
				break;
			}

			case 'finished': {
				counts.finished++;
				break;
			}

			case 'failed': {
				counts.failed++;
				if (!row.uploaded || row.state === undefined) {
					counts.uploadFailed++;
				}

				break;
			}

			default: {
				counts.transferring++;
			}
		}
	}

	return counts;
}

const transferPhases = new Set<FilePhase>(['upserting', 'uploading', 'finalizing']);

/** The live rows in the order that matters: transfers in flight, then failures, then files still waiting. */
export function liveRows(files: readonly FileRow[]): FileRow[] {
	return [
		...files.filter(row => transferPhases.has(row.phase)),
		...files.filter(row => row.phase === 'failed'),
		...files.filter(row => row.phase === 'waiting'),
	];
}

/** Applies one workflow event at time `now` (ms since the epoch). */
export function reduceUpload(state: UploadViewState, event: UploadEvent, now: number): UploadViewState {
	switch (event.type) {
		case 'files-listed': {
			const listed = event.skipped.length > 0 ? addStatic(state, {kind: 'skipped', key: '\u0000skipped', skipped: event.skipped}) : state;
			return {
				...listed,
				folder: event.folder,
				totalBytes: event.totalBytes,
				files: event.files.map(file => ({name: file.name, size: file.size, mimeType: file.mimeType, phase: 'waiting', sentBytes: 0, uploaded: false})),
			};
		}

		case 'space-loaded': {
			return addStatic({...state, space: event.space}, {kind: 'space', key: '\u0000space', space: event.space});
		}

		case 'space-warning': {
			return addStatic({...state, spaceWarning: event.message}, {kind: 'space-warning', key: '\u0000space', message: event.message});
		}

		case 'chat-creating': {
			return {...state, chat: {status: 'creating', title: event.title}};
		}

		case 'chat-created': {
			const chatted = {...state, chat: {status: 'created' as const, id: event.chatId, title: event.title, createdAt: now}};
			return addStatic(chatted, {kind: 'chat', key: '\u0000chat', chatId: event.chatId, title: event.title, elapsedMs: now - state.startedAt});
		}

		case 'file-started': {
			const next = updateFile(state, event.name, row => ({...row, phase: 'upserting'}));
			return next.uploadStartedAt === undefined ? {...next, uploadStartedAt: now} : next;
		}

		case 'retry': {
			const retry = {inMs: event.retryInMs, reason: event.reason, at: now};
			if (event.file === undefined) {
				return {...state, retry: {...retry, operation: event.operation}};
			}

			return updateFile(state, event.file, row => ({...row, retry}));
		}

		case 'file-upserted': {
			const next = updateFile(state, event.name, row => ({...row, contentId: event.contentId, phase: 'uploading'}));
			return next.uploadStartedAt === undefined ? {...next, uploadStartedAt: now} : next;
		}

		case 'file-progress': {
			const previous = state.files.find(row => row.name === event.name)?.sentBytes ?? 0;
			const next = updateFile(state, event.name, row => ({...row, phase: 'uploading', sentBytes: event.sentBytes}));
			return {...next, sentBytes: next.sentBytes + Math.max(0, event.sentBytes - previous)};
		}

		case 'file-uploaded': {
			const previous = state.files.find(row => row.name === event.name)?.sentBytes ?? 0;
			const next = updateFile(state, event.name, row => ({...row, phase: 'finalizing', sentBytes: event.bytes, uploaded: true}));
			return {...next, sentBytes: next.sentBytes + Math.max(0, event.bytes - previous)};
		}

		case 'file-finalized': {
			return updateFile(state, event.name, row => ({...row, phase: 'ingesting'}));
		}

		case 'file-failed': {
			return updateFile(state, event.name, row => ({...row, phase: 'failed', error: event.message, ...(event.contentId ? {contentId: event.contentId} : {})}));
		}

		case 'upload-complete': {
			return {...state, uploadEndedAt: now};
		}

		case 'ingestion-started': {
			return {...state, ingestion: {status: 'running', total: event.total, timeoutMs: event.timeoutMs, startedAt: now, round: 0}};
		}

		case 'ingestion-state': {
			const failed = event.final && event.state !== 'FINISHED';
			const phase: FilePhase = event.final ? (failed ? 'failed' : 'finished') : 'ingesting';
			return updateFile(state, event.name, row => ({...row, state: event.state, phase}));
		}

		case 'ingestion-round': {
			return {...state, retry: undefined, ingestion: {...state.ingestion, total: event.total, round: event.round, timeoutMs: event.timeoutMs}};
		}

		case 'ingestion-complete': {
			const done = {...state, retry: undefined, ingestion: {...state.ingestion, status: 'done' as const, endedAt: now}};
			return addStatic(done, {kind: 'ingestion', key: '\u0000ingestion', finished: event.finished, failed: event.failed, total: event.total, elapsedMs: event.elapsedMs});
		}

		case 'message-sent': {
			return {...state, reply: {...state.reply, status: 'sent', prompt: event.text, sentAt: now}};
		}

		case 'reply-progress': {
			return {...state, retry: undefined, reply: {...state.reply, status: 'streaming', text: event.text, elapsedMs: event.elapsedMs}};
		}

		case 'reply-complete': {
			const replied = {...state, retry: undefined, reply: {...state.reply, status: 'done' as const, text: event.text, elapsedMs: event.elapsedMs}};
			return addStatic(replied, {kind: 'reply', key: '\u0000reply', text: event.text, elapsedMs: event.elapsedMs});
		}

		case 'history': {
			return addStatic({...state, history: event.messages}, {kind: 'history', key: '\u0000history', messages: event.messages});
		}

		case 'result': {
			return {...state, result: {chatId: event.chatId, contentIds: event.contentIds, reply: event.reply, failed: event.failed}, done: true, endedAt: now};
		}

		default: {
			return state;
		}
	}
}

/** The run ended with an error (shown as one sentence in the red panel). */
export function failUpload(state: UploadViewState, message: string, now: number): UploadViewState {
	return {...state, error: message, done: true, endedAt: now};
}

export function cancelUpload(state: UploadViewState, now: number): UploadViewState {
	return {...state, cancelled: true, done: true, endedAt: now};
}

/** Only the end of the run reaches the screen at once; everything else waits for the next throttled frame. */
export function isUrgent(event: UploadEvent): boolean {
	return event.type === 'result';
}

/**
 * Holds the screen's state outside React; the workflow's events are applied as they come and
 * subscribers are told, so the app can re-render at a bounded rate.
 */
export class UploadViewModel {
	private current: UploadViewState;
	private readonly listeners = new Set<(urgent: boolean) => void>();

	constructor(private readonly clock: () => number = Date.now, prompt?: string, banner?: string) {
		this.current = initialUploadState(clock(), prompt, banner);
	}

	get state(): UploadViewState {
		return this.current;
	}

	now(): number {
		return this.clock();
	}

	apply(event: UploadEvent): void {
		this.current = reduceUpload(this.current, event, this.clock());
		this.notify(isUrgent(event));
	}

	fail(message: string): void {
		this.current = failUpload(this.current, message, this.clock());
		this.notify(true);
	}

	cancel(): void {
		if (!this.current.done) {
			this.current = cancelUpload(this.current, this.clock());
			this.notify(true);
		}
	}

	subscribe(listener: (urgent: boolean) => void): () => void {
		this.listeners.add(listener);
		return () => {
			this.listeners.delete(listener);
		};
	}

	private notify(urgent: boolean): void {
		for (const listener of this.listeners) {
			listener(urgent);
		}
	}
}
