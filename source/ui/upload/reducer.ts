/** The upload screen's reducer: each workflow event applied to the view state, a pure function of both and the time. */
import type {UploadEvent} from '../../workflow/events.js';
import {updateFile} from './file-rows.js';
import {addSent} from './throughput.js';
import type {FilePhase, StaticItem, UploadViewState} from './view-state.js';

function addStatic(state: UploadViewState, item: StaticItem): UploadViewState {
	return {...state, finished: [...state.finished, item]};
}

/** The run's setup: the files listed, the space, the chat, the sync plan. Undefined for any other event. */
function reduceSetup(state: UploadViewState, event: UploadEvent, now: number): UploadViewState | undefined {
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

		case 'chat-checked': {
			const checked = {...state, chat: {status: 'created' as const, id: event.chatId, title: `existing chat, ${event.messages} ${event.messages === 1 ? 'message' : 'messages'}`, createdAt: now}};
			return addStatic(checked, {kind: 'chat', key: '\u0000chat', chatId: event.chatId, title: checked.chat.title, elapsedMs: now - state.startedAt});
		}

		case 'sync-planned': {
			const unchanged = new Set(event.unchanged.map(file => file.name));
			const awaiting = new Map(event.awaiting.map(file => [file.name, file.contentId]));
			const files = state.files.map(row => {
				if (unchanged.has(row.name)) {
					return {...row, phase: 'finished' as const, state: 'unchanged', unchanged: true};
				}

				const contentId = awaiting.get(row.name);
				return contentId === undefined ? row : {...row, phase: 'ingesting' as const, contentId, uploaded: true, sentBytes: row.size};
			});
			const toSend = [...event.upload, ...event.replace].reduce((sum, file) => sum + file.size, 0);
			return addStatic({...state, files, totalBytes: toSend}, {
				kind: 'sync',
				key: '\u0000sync',
				upload: event.upload.length,
				replace: event.replace.length,
				awaiting: event.awaiting.length,
				unchanged: event.unchanged.map(file => file.name),
				unchangedBytes: event.unchanged.reduce((sum, file) => sum + file.size, 0),
				deleting: (event.delete ?? []).map(file => file.name),
				...(event.manifest === undefined ? {} : {manifest: event.manifest}),
			});
		}

		default: {
			return undefined;
		}
	}
}

/** Each file's upload, and retries. Undefined for any other event. */
function reduceFiles(state: UploadViewState, event: UploadEvent, now: number): UploadViewState | undefined {
	switch (event.type) {
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
			return addSent(next, Math.max(0, event.sentBytes - previous), now);
		}

		case 'file-uploaded': {
			const previous = state.files.find(row => row.name === event.name)?.sentBytes ?? 0;
			const next = updateFile(state, event.name, row => ({...row, phase: 'finalizing', sentBytes: event.bytes, uploaded: true}));
			return addSent(next, Math.max(0, event.bytes - previous), now);
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

		default: {
			return undefined;
		}
	}
}

/** Ingestion, the question and its reply, and the result. Undefined for any other event. */
function reduceAnswer(state: UploadViewState, event: UploadEvent, now: number): UploadViewState | undefined {
	switch (event.type) {
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
			return addStatic(done, {kind: 'ingestion', key: '\u0000ingestion', finished: event.finished, failed: event.failed, total: event.total, elapsedMs: event.elapsedMs, folded: state.folded});
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
			return undefined;
		}
	}
}

/** Applies one workflow event at time `now` (ms since the epoch). */
export function reduceUpload(state: UploadViewState, event: UploadEvent, now: number): UploadViewState {
	return reduceSetup(state, event, now) ?? reduceFiles(state, event, now) ?? reduceAnswer(state, event, now) ?? state;
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
