/**
 * The file rows of the upload screen: one row changed (a row that becomes final is also printed
 * once, in order), the counts of the files and ingestion lines, and the order of the live rows.
 */
import type {FilePhase, FileRow, UploadViewState} from './view-state.js';

/**
 * FINISHED rows printed one by one above the live area; later ones are only counted (`folded`)
 * and said once, in the ingestion summary, so a 2 000-file upload leaves a readable scrollback.
 * Failed rows are always printed.
 */
export const listedFinishedRows = 10;

/** The row that just became final goes to the scrollback, or is counted when enough FINISHED rows are there. */
function finishRow(state: UploadViewState, row: FileRow): Pick<UploadViewState, 'finished' | 'listedFinished' | 'folded'> {
	const {finished, listedFinished, folded} = state;
	if (row.phase === 'failed') {
		return {finished: [...finished, {kind: 'file', key: row.name, row}], listedFinished, folded};
	}

	return listedFinished < listedFinishedRows
		? {finished: [...finished, {kind: 'file', key: row.name, row}], listedFinished: listedFinished + 1, folded}
		: {finished, listedFinished, folded: folded + 1};
}

/**
 * Changes the row named `name`; a pending retry is dropped once the row moves on. The rows are
 * copied, not mapped (a 2 000-file run applies some 20 000 events).
 */
export function updateFile(state: UploadViewState, name: string, change: (row: FileRow) => FileRow): UploadViewState {
	const index = state.files.findIndex(row => row.name === name);
	const row = state.files[index];
	if (row === undefined) {
		return {...state};
	}

	const next = {...change(row)};
	if (next.retry && next.retry === row.retry && next.phase !== row.phase) {
		delete next.retry;
	}

	const files = [...state.files];
	files[index] = next;
	const wasFinal = row.phase === 'finished' || row.phase === 'failed';
	const isFinal = next.phase === 'finished' || next.phase === 'failed';
	return !wasFinal && isFinal ? {...state, files, ...finishRow(state, next)} : {...state, files};
}

/**
 * The counters of the files line and the ingestion line, from the one list of rows. `uploaded`
 * has one meaning everywhere: the file's bytes are stored (the chat keeps it); a file is either
 * transferring or uploaded, never both (one being finalized is uploaded).
 */
export type FileCounts = {total: number; waiting: number; transferring: number; uploaded: number; ingesting: number; finished: number; failed: number; uploadFailed: number; unchanged: number};

export function countFiles(files: readonly FileRow[]): FileCounts {
	const counts: FileCounts = {total: 0, waiting: 0, transferring: 0, uploaded: 0, ingesting: 0, finished: 0, failed: 0, uploadFailed: 0, unchanged: 0};
	for (const row of files) {
		// A file a sync skipped is neither sent nor waited for; it only has its own count.
		if (row.unchanged) {
			counts.unchanged++;
			continue;
		}

		counts.total++;
		if (isUploaded(row)) {
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
				if (!row.uploaded) {
					counts.transferring++;
				}
			}
		}
	}

	return counts;
}

const transferPhases = new Set<FilePhase>(['upserting', 'uploading', 'finalizing']);

/** The file's bytes are stored (whatever ingestion made of it since). */
export function isUploaded(row: FileRow): boolean {
	return row.uploaded;
}

/** The transfer's bytes per second so far and, while it runs, the time left at that rate. */
export function transferRate(state: UploadViewState, now: number): {rate: number; etaMs?: number} {
	const transferMs = state.uploadStartedAt === undefined ? 0 : (state.uploadEndedAt ?? state.endedAt ?? now) - state.uploadStartedAt;
	const rate = transferMs > 0 ? state.sentBytes / (transferMs / 1000) : 0;
	const left = state.totalBytes - state.sentBytes;
	const running = state.uploadEndedAt === undefined && state.endedAt === undefined;
	return running && rate > 0 && left > 0 ? {rate, etaMs: (left / rate) * 1000} : {rate};
}

/**
 * The rows not shown, in words: each counted once (transferring, failed before its upload ended,
 * waiting, uploaded), `uploaded` meaning what it means on the files line.
 */
export function hiddenSummary(rows: readonly FileRow[]): string {
	let transferring = 0;
	let failed = 0;
	let waiting = 0;
	let uploaded = 0;
	for (const row of rows) {
		if (row.unchanged) {
			continue;
		}

		if (isUploaded(row)) {
			uploaded++;
		} else if (transferPhases.has(row.phase)) {
			transferring++;
		} else if (row.phase === 'failed') {
			failed++;
		} else {
			waiting++;
		}
	}

	return [
		transferring > 0 ? `${transferring} transferring` : '',
		failed > 0 ? `${failed} failed` : '',
		waiting > 0 ? `${waiting} waiting` : '',
		uploaded > 0 ? `${uploaded} uploaded` : '',
	].filter(Boolean).join(', ');
}

/** The live rows in the order that matters: transfers in flight, then failures, then files still waiting. */
export function liveRows(files: readonly FileRow[]): FileRow[] {
	return [
		...files.filter(row => transferPhases.has(row.phase)),
		...files.filter(row => row.phase === 'failed'),
		...files.filter(row => row.phase === 'waiting'),
	];
}
