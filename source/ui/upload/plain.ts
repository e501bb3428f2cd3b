import type {UploadEvent} from '../../workflow/events.js';
import {plural} from '../../format/text.js';
import {formatBytes, formatElapsed, formatRate, formatSeconds, skippedLine, truncate} from './format.js';

/**
 * The events whose lines are the run's result and go to stdout: the reply and the history. Every
 * other line is progress and goes to stderr (gh's rule), so `upload … > answer.txt` keeps the answer.
 */
export const resultEvents: ReadonlySet<UploadEvent['type']> = new Set(['reply-complete', 'history']);

/** One plain line for an event (no TTY, or CI set), or undefined when the event prints nothing. */
export function plainLine(event: UploadEvent): string | undefined {
	switch (event.type) {
		case 'files-listed': {
			const files = `Files: ${event.files.length} in ${event.folder} (${formatBytes(event.totalBytes)}): ${event.files.map(file => file.name).join(', ')}`;
			return event.skipped.length > 0 ? `${files}\n${skippedLine(event.skipped)}` : files;
		}

		case 'space-loaded': {
			const {space} = event;
			return `Space: ${space.name} · model ${space.languageModel} · chat upload ${space.chatUpload} · modules ${space.modules.length > 0 ? space.modules.join(', ') : '(none)'}`;
		}

		case 'space-warning': {
			return `Warning: ${event.message}`;
		}

		case 'chat-creating': {
			return undefined;
		}

		case 'chat-created': {
			return `Chat: created ${event.chatId} "${event.title}" in ${formatElapsed(event.durationMs)}`;
		}

		case 'file-started': {
			return undefined;
		}

		case 'retry': {
			return `Retrying ${event.operation}${event.file === undefined ? '' : ` for ${event.file}`} in ${formatSeconds(event.retryInMs)} after ${event.reason}`;
		}

		case 'file-upserted': {
			return `Upserted ${event.name} as ${event.contentId}`;
		}

		case 'file-progress': {
			return `Uploading ${event.name}: ${formatBytes(event.sentBytes)} of ${formatBytes(event.totalBytes)}`;
		}

		case 'file-uploaded': {
			return `Uploaded ${event.name}: ${formatBytes(event.bytes)} in ${formatElapsed(event.durationMs)}`;
		}

		case 'file-finalized': {
			return `Finalized ${event.name} (${event.contentId})`;
		}

		case 'file-failed': {
			return `Failed ${event.name}: ${event.message}`;
		}

		case 'upload-complete': {
			return `Upload: ${plural(event.files, 'file')}${event.failed > 0 ? ` (${event.failed} failed)` : ''}, ${formatBytes(event.bytes)} in ${formatElapsed(event.durationMs)} (${formatRate(event.bytesPerSecond)})`;
		}

		case 'ingestion-started': {
			return `Ingestion: waiting for ${plural(event.total, 'content')} (deadline ${formatSeconds(event.timeoutMs)})`;
		}

		case 'ingestion-state': {
			return `Ingestion: ${event.name} (${event.contentId}) ${event.state}`;
		}

		case 'ingestion-round': {
			return `Ingestion: round ${event.round}, ${event.finished}/${event.total} finished, ${formatElapsed(event.elapsedMs)} of ${formatSeconds(event.timeoutMs)}`;
		}

		case 'ingestion-complete': {
			return event.failed > 0
				? `Ingestion: ${event.finished}/${event.total} finished, ${event.failed} failed, in ${formatElapsed(event.elapsedMs)}`
				: `Ingestion: all ${event.total} finished in ${formatElapsed(event.elapsedMs)}`;
		}

		case 'message-sent': {
			return `Asked: ${truncate(event.text, 200)}`;
		}

		case 'reply-progress': {
			return `Reply (streaming): ${truncate(event.text, 200)}`;
		}

		case 'reply-complete': {
			return `Reply (${formatElapsed(event.elapsedMs)}): ${event.text}`;
		}

		case 'history': {
			return ['History:', ...event.messages.map(message => `  ${message.role}: ${message.text}`)].join('\n');
		}

		case 'result': {
			const done = `Done: chat ${event.chatId}, contents ${event.contentIds.join(', ')}`;
			return event.failed.length > 0
				? `${done}; ${plural(event.failed.length, 'file')} left out: ${event.failed.map(failure => `${failure.name} (${failure.stage}: ${failure.reason})`).join(', ')}`
				: done;
		}
	}
}

/**
 * Keeps the plain output readable: byte progress prints at most once per `intervalMs` per file,
 * and not for the start and end of a transfer (the upsert and upload lines say those).
 */
export function createPlainFilter(intervalMs = 1000, clock: () => number = Date.now): (event: UploadEvent) => boolean {
	const last = new Map<string, number>();
	return event => {
		if (event.type !== 'file-progress') {
			return true;
		}

		if (event.sentBytes === 0 || event.sentBytes >= event.totalBytes) {
			return false;
		}

		const now = clock();
		const previous = last.get(event.name);
		if (previous !== undefined && now - previous < intervalMs) {
			return false;
		}

		if (previous === undefined) {
			last.set(event.name, now);
			return false;
		}

		last.set(event.name, now);
		return true;
	};
}
