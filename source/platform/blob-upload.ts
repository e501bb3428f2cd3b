/**
 * Streams a file to a pre-signed blob address with PUT, through two reused buffers, with
 * progress, retries (a retry re-opens the file) and a time allowed that grows with the size.
 */
import {open, stat} from 'node:fs/promises';
import {userAgent as defaultUserAgent} from '../version.js';
import {runAttempts} from './attempts.js';
import {attemptPlan, type ClientContext} from './client-options.js';
import {readResponse} from './read-response.js';

export type BlobUpload = {
	filePath: string;
	contentType: string;
	/** Size in bytes; read from the file when absent. */
	size?: number;
	onProgress?: (sentBytes: number, totalBytes: number) => void;
	signal?: AbortSignal;
	/** Time allowed to one attempt, ms. */
	timeoutMs?: number;
};

/** A blob PUT gets this plus one second per MiB per attempt, and twice that in all. */
const blobBaseTimeoutMs = 60_000;

/** Size of each of the two buffers a file is sent through. */
const blobChunkBytes = 256 * 1024;

/**
 * Sends the first `size` bytes of a file through two buffers: one is read into while the other
 * is being written, and each is reused once its write has finished. Memory stays the same for any
 * file size and leaves nothing behind for the garbage collector.
 */
async function sendFile(filePath: string, size: number, write: (chunk: Uint8Array) => Promise<void>, onProgress: BlobUpload['onProgress']): Promise<void> {
	const handle = await open(filePath, 'r');
	try {
		const buffers = [Buffer.allocUnsafe(blobChunkBytes), Buffer.allocUnsafe(blobChunkBytes)] as const;
		let writing: Promise<void> = Promise.resolve();
		let sent = 0;
		for (let index = 0; sent < size; index++) {
			// Each read waits for that buffer's previous write: two buffers, no more.
			const buffer = index % 2 === 0 ? buffers[0] : buffers[1];
			const {bytesRead} = await handle.read(buffer, 0, Math.min(buffer.length, size - sent), sent);
			await writing;
			if (bytesRead === 0) {
				throw new Error(`${filePath} ended at ${sent} of ${size} bytes while it was being sent`);
			}

			sent += bytesRead;
			const reached = sent;
			writing = write(buffer.subarray(0, bytesRead)).then(() => {
				onProgress?.(reached, size);
			});
			// A write refused while the next buffer is being read (the request was aborted, the
			// connection closed) is awaited at the top of the loop: until then it is not left unhandled,
			// which would end the process with a stack trace.
			writing.catch(() => undefined);
		}

		await writing;
	} finally {
		await handle.close();
	}
}

/**
 * PUTs the file to `writeUrl`. No platform credentials are sent. Time allowed grows with the size
 * (at least 1 MiB/s assumed). The log and errors name the host and path, never the query.
 */
export async function putBlob(context: ClientContext, writeUrl: string, upload: BlobUpload): Promise<void> {
	const {options} = context;
	const size = upload.size ?? (await stat(upload.filePath)).size;
	const url = new URL(writeUrl);
	const shownPath = `${url.host}${url.pathname}`;
	const attemptTimeoutMs = upload.timeoutMs ?? (options.timeoutMs ?? blobBaseTimeoutMs) + (Math.ceil(size / 1024 / 1024) * 1000);
	const plan = attemptPlan(context, 'putBlob', 'PUT', shownPath, {timeoutMs: attemptTimeoutMs, totalTimeoutMs: 2 * attemptTimeoutMs, ...(upload.signal ? {signal: upload.signal} : {})});
	plan.target = url.host;
	await runAttempts(plan, async (signal, attempt) => {
		const {filePath, onProgress} = upload;
		onProgress?.(0, size);
		const started = performance.now();
		const response = await context.transport.request(url, {
			method: 'PUT',
			signal,
			headers: {
				'content-type': upload.contentType,
				'content-length': String(size),
				'x-ms-blob-type': 'BlockBlob',
				'user-agent': options.userAgent ?? defaultUserAgent,
			},
			body: async write => sendFile(filePath, size, write, onProgress),
		});
		const {status, requestId, error} = readResponse({operation: 'putBlob', method: 'PUT', path: shownPath}, response, ['request-id', 'x-ms-request-id']);
		context.log({method: 'PUT', path: shownPath, attempt, status, requestId, durationMs: performance.now() - started});
		if (error) {
			throw error;
		}
	});
}
