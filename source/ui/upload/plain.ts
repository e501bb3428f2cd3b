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
			const files = `Files: ${event.files.length} in ${event.folder} (${formatBytes(event.totalBytes)}): ${cappedNames(event.files.map(file => file.name))}`;
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

		case 'chat-checked': {
			return `Chat: ${event.chatId} found (${plural(event.messages, 'message')}) in ${formatElapsed(event.durationMs)}; uploading into it`;
		}

		case 'sync-planned': {
			return syncLines(event);
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

		case 'content-deleted': {
			return `Deleted ${event.name} (${event.contentId}): its file is gone`;
		}

		case 'delete-failed': {
			return `Failed to delete ${event.name} (${event.contentId}): ${event.message}`;
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

type SyncPlanned = Extract<UploadEvent, {type: 'sync-planned'}>;

/** Names cut after `shown`, as the Skipped line cuts them: `a, b, c, … 297 more`. */
export function cappedNames(names: readonly string[], shown = 10): string {
	return names.length > shown ? `${names.slice(0, shown).join(', ')}, … ${names.length - shown} more` : names.join(', ');
}

function sizeOf(files: ReadonlyArray<{size: number}>): string {
	return formatBytes(files.reduce((sum, file) => sum + file.size, 0));
}

/**
 * The plan of a sync. A live run gets a summary and the unchanged files; a dry run gets one line
 * per file (what would happen to it, its size, its key), as rsync's --dry-run lists them.
 */
export function syncLines(event: SyncPlanned): string {
	const counts = `${event.upload.length} new, ${event.replace.length} replaced, ${event.unchanged.length} unchanged${event.awaiting.length > 0 ? `, ${event.awaiting.length} still ingesting` : ''}`;
	const manifest = event.manifest === undefined ? '' : `\nManifest: ${event.manifest}`;
	const removed = event.delete ?? [];
	const deleting = removed.length > 0 ? `\nDelete: ${plural(removed.length, 'content')} whose file is gone: ${cappedNames(removed.map(file => file.name))}` : '';
	if (!event.dryRun) {
		const unchanged = event.unchanged.length > 0 ? `\nUnchanged: ${plural(event.unchanged.length, 'file')} skipped (${sizeOf(event.unchanged)}): ${cappedNames(event.unchanged.map(file => file.name))}` : '';
		return `Sync: ${counts}; ${sizeOf([...event.upload, ...event.replace])} to send${unchanged}${deleting}${manifest}`;
	}

	const rows: Array<[string, {name: string; size: number}]> = [
		...event.upload.map(file => ['upload', file] as [string, {name: string; size: number}]),
		...event.replace.map(file => ['replace', file] as [string, {name: string; size: number}]),
		...event.awaiting.map(file => ['ingesting', file] as [string, {name: string; size: number}]),
		...event.unchanged.map(file => ['unchanged', file] as [string, {name: string; size: number}]),
	];
	const lines = [
		...rows.map(([action, file]) => `  ${action.padEnd(9)} ${formatBytes(file.size).padStart(10)}  ${file.name}`),
		...removed.map(file => `  ${'delete'.padEnd(9)} ${file.contentId.padStart(10)}  ${file.name}`),
	];
	const head = `Dry run, nothing sent: would upload ${plural(event.upload.length, 'file')} (${sizeOf(event.upload)}), replace ${event.replace.length} (${sizeOf(event.replace)}), skip ${event.unchanged.length} unchanged (${sizeOf(event.unchanged)})${event.awaiting.length > 0 ? ` and wait for ${event.awaiting.length} still ingesting` : ''}${removed.length > 0 ? `, delete ${removed.length}` : ''}${event.chatId === undefined ? ' in a new chat' : ` in chat ${event.chatId}`}`;
	return [head, ...lines].join('\n') + manifest;
}
