/**
 * What plain output (no terminal, or CI) prints of an upload, so a person can skim it: the run's
 * steps, at most one line per file (its final state: FINISHED, failed, deleted), and every
 * `statsIntervalMs` a one-line summary (rclone's --stats). With `quiet`, only the result (the
 * reply and the history) and the failures. --json prints every event instead (upload.ts).
 */
import {formatCountdown} from '../../format/duration.js';
import type {UploadEvent} from '../../workflow/events.js';
import {formatBytes, formatElapsed, formatRate} from './format.js';
import {plainLine, resultEvents} from './plain.js';
import {countFiles, initialUploadState, reduceUpload, transferRate, type UploadViewState} from './state.js';

export type PlainOutputLine = {stream: 'stdout' | 'stderr'; text: string};

export type PlainOutputOptions = {
	quiet?: boolean;
	/** How often the summary line is printed; 0 or absent: never. */
	statsIntervalMs?: number;
	clock?: () => number;
};

/** A file's steps before its final state, and the rounds and partial replies the summary stands for. */
const progressEvents: ReadonlySet<UploadEvent['type']> = new Set(['file-started', 'file-upserted', 'file-progress', 'file-uploaded', 'file-finalized', 'ingestion-round', 'reply-progress']);

/** What `quiet` still prints on stderr: what failed. */
const failureEvents: ReadonlySet<UploadEvent['type']> = new Set(['file-failed', 'delete-failed']);

/** Whether an event prints in plain output: every step of the run, each file once, at its end. */
function printsPlain(event: UploadEvent, quiet: boolean): boolean {
	if (quiet) {
		return resultEvents.has(event.type) || failureEvents.has(event.type);
	}

	return event.type === 'ingestion-state' ? event.final : !progressEvents.has(event.type);
}

/** The summary line: files and bytes sent, the rate and time left, ingestion, failures and time so far. */
export function statsLine(state: UploadViewState, now: number): string {
	const counts = countFiles(state.files);
	const {rate, etaMs} = transferRate(state, now);
	return [
		`Stats: ${counts.uploaded}/${counts.total} files uploaded`,
		`${formatBytes(state.sentBytes)} of ${formatBytes(state.totalBytes)}`,
		`${rate > 0 ? formatRate(rate) : '–'}${etaMs === undefined ? '' : ` (ETA ${formatCountdown(etaMs)})`}`,
		`${counts.finished} ingested`,
		...(counts.unchanged > 0 ? [`${counts.unchanged} unchanged`] : []),
		...(counts.failed > 0 ? [`${counts.failed} failed`] : []),
		`${formatElapsed(now - state.startedAt)} elapsed`,
	].join(', ');
}

/** The plain printer: `event` for each event of the run, `due` on a timer (the summary when one is due). */
export type PlainOutput = {
	event(event: UploadEvent): PlainOutputLine[];
	due(): PlainOutputLine[];
};

/**
 * A printer over the run's events: each event in, the lines it prints out. The summary is due
 * `statsIntervalMs` after the last one, checked on each event and on `due` (the caller's timer, for
 * the waits in which no event comes), never after the result.
 */
export function createPlainOutput(options: PlainOutputOptions = {}): PlainOutput {
	const clock = options.clock ?? Date.now;
	const quiet = options.quiet ?? false;
	const interval = quiet ? 0 : options.statsIntervalMs ?? 0;
	let state = initialUploadState(clock());
	let lastStats = state.startedAt;
	const due = (): PlainOutputLine[] => {
		const now = clock();
		if (interval <= 0 || state.done || now - lastStats < interval) {
			return [];
		}

		lastStats = now;
		return [{stream: 'stderr', text: statsLine(state, now)}];
	};

	return {
		event(event) {
			state = reduceUpload(state, event, clock());
			const text = printsPlain(event, quiet) ? plainLine(event) : undefined;
			return [...(text === undefined ? [] : [{stream: resultEvents.has(event.type) ? 'stdout' as const : 'stderr' as const, text}]), ...due()];
		},
		due,
	};
}
