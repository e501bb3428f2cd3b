/** Errors of the folder-upload workflow (spec §7). Each message is one sentence naming what failed. */

export class WorkflowError extends Error {
	override name = 'WorkflowError';
}

/** The folder to upload is not a directory (or does not exist). */
export class NotADirectoryError extends WorkflowError {
	override name = 'NotADirectoryError';
	readonly code = 'ENOTDIR';

	constructor(readonly folder: string, readonly reason: 'missing' | 'not-a-directory') {
		super(reason === 'missing'
			? `Not a directory: ${folder} does not exist; pass the folder whose files should be uploaded`
			: `Not a directory: ${folder} is a file, not a folder; pass the folder whose files should be uploaded`);
	}
}

/** The folder holds no eligible file (regular, name not starting with a dot). */
export class NoFilesFoundError extends WorkflowError {
	override name = 'FileNotFoundError';
	readonly code = 'ENOENT';

	constructor(readonly folder: string) {
		super(`File not found: ${folder} has no files to upload (only regular files whose names do not begin with a dot are uploaded)`);
	}
}

/** The upsert answer carried no `writeUrl` for a file. */
export class MissingWriteUrlError extends WorkflowError {
	override name = 'MissingWriteUrlError';

	constructor(readonly fileName: string, readonly contentId: string | undefined) {
		super(`The platform returned no writeUrl for ${fileName}${contentId ? ` (content ${contentId})` : ''}, so its bytes cannot be uploaded; check that the space allows chat uploads`);
	}
}

/** The blob host answered the PUT with a non-2xx status. */
export class BlobUploadError extends WorkflowError {
	override name = 'BlobUploadError';

	constructor(readonly fileName: string, readonly status: number, readonly detail: string) {
		super(`Uploading ${fileName} failed: the blob store answered the PUT with HTTP ${status}${detail ? ` (${detail})` : ''}`);
	}
}

/** Any other failure while upserting, sending or finalizing one file. */
export class FileUploadError extends WorkflowError {
	override name = 'FileUploadError';

	constructor(readonly fileName: string, cause: unknown) {
		const detail = cause instanceof Error ? cause.message : String(cause);
		super(`Uploading ${fileName} failed: ${detail.replace(/\.$/, '')}`, {cause});
	}
}

/** A content's ingestion state began with FAILED. */
export class IngestionFailedError extends WorkflowError {
	override name = 'IngestionFailedError';

	constructor(readonly contentId: string, readonly fileName: string, readonly state: string) {
		super(`Ingestion failed for content ${contentId} (${fileName}) with state ${state}; check that the file is readable and of a supported type`);
	}
}

/** The ingestion deadline passed with contents still pending. */
export class IngestionTimeoutError extends WorkflowError {
	override name = 'IngestionTimeoutError';
	readonly pending: string[];

	constructor(pending: readonly string[], readonly timeoutMs: number) {
		const sorted = [...pending].sort(compareCodePoints);
		super(`Ingestion timed out after ${formatSeconds(timeoutMs)} with ${sorted.length} content${sorted.length === 1 ? '' : 's'} pending: ${sorted.join(', ')}; raise --ingestion-timeout to wait longer`);
		this.pending = sorted;
	}
}

/** No complete assistant reply arrived in time. */
export class ReplyTimeoutError extends WorkflowError {
	override name = 'ReplyTimeoutError';

	constructor(readonly chatId: string, readonly timeoutMs: number) {
		super(`Timed out after ${formatSeconds(timeoutMs)} waiting for the assistant's reply in chat ${chatId}; raise --reply-timeout to wait longer`);
	}
}

function formatSeconds(ms: number): string {
	return `${Number((ms / 1000).toFixed(2))} s`;
}

/** Orders strings by Unicode code point (not by UTF-16 unit, not by locale). */
export function compareCodePoints(a: string, b: string): number {
	if (a === b) {
		return 0;
	}

	const left = a[Symbol.iterator]();
	const right = b[Symbol.iterator]();
	for (;;) {
		const x = left.next();
		const y = right.next();
		if (x.done || y.done) {
			return x.done ? (y.done ? 0 : -1) : 1;
		}

		const cx = x.value.codePointAt(0) ?? 0;
		const cy = y.value.codePointAt(0) ?? 0;
		if (cx !== cy) {
			return cx < cy ? -1 : 1;
		}
	}
}
