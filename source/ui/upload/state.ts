import type {ChatMessageSummary, SpaceSummary, UploadEvent} from '../../workflow/events.js';

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
};

export type StaticItem = {kind: 'file'; key: string; row: FileRow};

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
	ingestion: {status: 'waiting' | 'running' | 'done'; finished: number; total: number; timeoutMs?: number; startedAt?: number; endedAt?: number; round: number};
	reply: {status: 'waiting' | 'sent' | 'streaming' | 'done'; prompt?: string; text: string; sentAt?: number; elapsedMs?: number};
	history?: ChatMessageSummary[];
	/** Rows that are final (✔/✖), in the order they became final; append-only for <Static>. */
	finished: StaticItem[];
	result?: {chatId: string; contentIds: string[]; reply: string};
	error?: string;
	cancelled: boolean;
	/** Ended: result, error or cancelled. */
	done: boolean;
	endedAt?: number;
};

export function initialUploadState(startedAt: number, prompt?: string): UploadViewState {
	return {
		startedAt,
		chat: {status: 'waiting'},
		files: [],
		totalBytes: 0,
		sentBytes: 0,
		ingestion: {status: 'waiting', finished: 0, total: 0, round: 0},
		reply: prompt === undefined ? {status: 'waiting', text: ''} : {status: 'waiting', prompt, text: ''},
		finished: [],
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

		const next = change(row);
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

/** Applies one workflow event at time `now` (ms since the epoch). */
export function reduceUpload(state: UploadViewState, event: UploadEvent, now: number): UploadViewState {
	switch (event.type) {
		case 'files-listed': {
			return {
				...state,
				folder: event.folder,
				totalBytes: event.totalBytes,
				files: event.files.map(file => ({name: file.name, size: file.size, mimeType: file.mimeType, phase: 'waiting', sentBytes: 0, uploaded: false})),
			};
		}

		case 'space-loaded': {
			return {...state, space: event.space};
		}

		case 'space-warning': {
			return {...state, spaceWarning: event.message};
		}

		case 'chat-creating': {
			return {...state, chat: {status: 'creating', title: event.title}};
		}

		case 'chat-created': {
			return {...state, chat: {status: 'created', id: event.chatId, title: event.title, createdAt: now}};
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
			return updateFile(state, event.name, row => ({...row, phase: 'failed', error: event.message}));
		}

		case 'upload-complete': {
			return {...state, uploadEndedAt: now};
		}

		case 'ingestion-started': {
			return {...state, ingestion: {status: 'running', finished: 0, total: event.total, timeoutMs: event.timeoutMs, startedAt: now, round: 0}};
		}

		case 'ingestion-state': {
			const failed = event.final && event.state !== 'FINISHED';
			const phase: FilePhase = event.final ? (failed ? 'failed' : 'finished') : 'ingesting';
			return updateFile(state, event.name, row => ({...row, state: event.state, phase}));
		}

		case 'ingestion-round': {
			return {...state, ingestion: {...state.ingestion, finished: event.finished, total: event.total, round: event.round, timeoutMs: event.timeoutMs}};
		}

		case 'ingestion-complete': {
			return {...state, ingestion: {...state.ingestion, status: 'done', finished: event.total, endedAt: now}};
		}

		case 'message-sent': {
			return {...state, reply: {...state.reply, status: 'sent', prompt: event.text, sentAt: now}};
		}

		case 'reply-progress': {
			return {...state, reply: {...state.reply, status: 'streaming', text: event.text, elapsedMs: event.elapsedMs}};
		}

		case 'reply-complete': {
			return {...state, reply: {...state.reply, status: 'done', text: event.text, elapsedMs: event.elapsedMs}};
		}

		case 'history': {
			return {...state, history: event.messages};
		}

		case 'result': {
			return {...state, result: {chatId: event.chatId, contentIds: event.contentIds, reply: event.reply}, done: true, endedAt: now};
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

	constructor(private readonly clock: () => number = Date.now, prompt?: string) {
		this.current = initialUploadState(clock(), prompt);
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
