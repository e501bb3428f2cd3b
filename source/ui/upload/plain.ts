import type {UploadEvent} from '../../workflow/events.js';
import {plural} from '../../format/text.js';
import {formatBytes, formatElapsed, formatRate, formatSeconds, skippedLine, truncate} from './format.js';

/**
 * The events whose lines are the run's result and go to stdout: the reply and the history. Every
 * other line is progress and goes to stderr (gh's rule), so `upload … > answer.txt` keeps the answer.
 */
export const resultEvents: ReadonlySet<UploadEvent['type']> = new Set(['reply-complete', 'history']);

type LineOf = {[Type in UploadEvent['type']]: (event: Extract<UploadEvent, {type: Type}>) => string | undefined};

/** Each event's plain line; undefined where the event prints nothing. */
const lineOf: LineOf = {
	'files-listed': event => {
		const files = `Files: ${event.files.length} in ${event.folder} (${formatBytes(event.totalBytes)}): ${cappedNames(event.files.map(file => file.name))}`;
		return event.skipped.length > 0 ? `${files}\n${skippedLine(event.skipped)}` : files;
	},
	'space-loaded': event => {
		const {space} = event;
		return `Space: ${space.name} · model ${space.languageModel} · chat upload ${space.chatUpload} · modules ${space.modules.length > 0 ? space.modules.join(', ') : '(none)'}`;
	},
	'space-warning': event => `Warning: ${event.message}`,
	'chat-creating': () => undefined,
	'chat-created': event => `Chat: created ${event.chatId} "${event.title}" in ${formatElapsed(event.durationMs)}`,
	'chat-checked': event => `Chat: ${event.chatId} found (${plural(event.messages, 'message')}) in ${formatElapsed(event.durationMs)}; uploading into it`,
	'sync-planned': event => syncLines(event),
	'file-started': () => undefined,
	retry: event => `Retrying ${event.operation}${event.file === undefined ? '' : ` for ${event.file}`} in ${formatSeconds(event.retryInMs)} after ${event.reason}`,
	'file-upserted': event => `Upserted ${event.name} as ${event.contentId}`,
	'file-progress': event => `Uploading ${event.name}: ${formatBytes(event.sentBytes)} of ${formatBytes(event.totalBytes)}`,
	'file-uploaded': event => `Uploaded ${event.name}: ${formatBytes(event.bytes)} in ${formatElapsed(event.durationMs)}`,
	'file-finalized': event => `Finalized ${event.name} (${event.contentId})`,
	'content-deleted': event => `Deleted ${event.name} (${event.contentId}): its file is gone`,
	'delete-failed': event => `Failed to delete ${event.name} (${event.contentId}): ${event.message}`,
	'file-failed': event => `Failed ${event.name}: ${event.message}`,
	'upload-complete': event => `Upload: ${plural(event.files, 'file')}${event.failed > 0 ? ` (${event.failed} failed)` : ''}, ${formatBytes(event.bytes)} in ${formatElapsed(event.durationMs)} (${formatRate(event.bytesPerSecond)})`,
	'ingestion-started': event => `Ingestion: waiting for ${plural(event.total, 'content')} (deadline ${formatSeconds(event.timeoutMs)})`,
	'ingestion-state': event => `Ingestion: ${event.name} (${event.contentId}) ${event.state}`,
	'ingestion-round': event => `Ingestion: round ${event.round}, ${event.finished}/${event.total} finished, ${formatElapsed(event.elapsedMs)} of ${formatSeconds(event.timeoutMs)}`,
	'ingestion-complete': event => event.failed > 0
		? `Ingestion: ${event.finished}/${event.total} finished, ${event.failed} failed, in ${formatElapsed(event.elapsedMs)}`
		: `Ingestion: all ${event.total} finished in ${formatElapsed(event.elapsedMs)}`,
	'message-sent': event => `Asked: ${truncate(event.text, 200)}`,
	'reply-progress': event => `Reply (streaming): ${truncate(event.text, 200)}`,
	'reply-complete': event => `Reply (${formatElapsed(event.elapsedMs)}): ${event.text}`,
	history: event => ['History:', ...event.messages.map(message => `  ${message.role}: ${message.text}`)].join('\n'),
	result: event => {
		const done = `Done: chat ${event.chatId}, contents ${event.contentIds.join(', ')}`;
		return event.failed.length > 0
			? `${done}; ${plural(event.failed.length, 'file')} left out: ${event.failed.map(failure => `${failure.name} (${failure.stage}: ${failure.reason})`).join(', ')}`
			: done;
	},
};

/** One plain line for an event (no TTY, or CI set), or undefined when the event prints nothing. */
export function plainLine(event: UploadEvent): string | undefined {
	return (lineOf[event.type] as (event: UploadEvent) => string | undefined)(event);
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
