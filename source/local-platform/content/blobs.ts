import {errorMessage} from '../../format/value.js';
import {createWriteStream} from 'node:fs';
import {chmod, mkdtemp, rename, rm, stat} from 'node:fs/promises';
import type {IncomingMessage} from 'node:http';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {Transform} from 'node:stream';
import {pipeline} from 'node:stream/promises';
import {HttpError, badRequest} from '../http/http.js';

/**
 * File bytes of uploaded contents, kept in a private temporary directory (mode 0700, files 0600,
 * removed on close) so that large uploads stream to disk instead of memory: the store itself holds
 * only each content's size. One file per content; a new PUT replaces it.
 */
export class BlobStore {
	private readonly sizes = new Map<string, number>();
	private totalBytes = 0;
	private uploadSequence = 0;

	private constructor(
		readonly directory: string,
		readonly maxBlobBytes: number,
		readonly maxTotalBytes: number,
	) {}

	static async create(maxBlobBytes: number, maxTotalBytes: number): Promise<BlobStore> {
		const directory = await mkdtemp(path.join(tmpdir(), 'platform-tui-local-'));
		// mkdtemp makes it 0700 already; said here so that no umask or platform default widens it.
		await chmod(directory, 0o700);
		return new BlobStore(directory, maxBlobBytes, maxTotalBytes);
	}

	get storedBytes(): number {
		return this.totalBytes;
	}

	pathOf(contentId: string): string {
		return path.join(this.directory, `${contentId}.blob`);
	}

	has(contentId: string): boolean {
		return this.sizes.has(contentId);
	}

	/** The stored size of a content's bytes (they stay on disk, at `pathOf`). */
	sizeOf(contentId: string): number | undefined {
		return this.sizes.get(contentId);
	}

	/**
	 * Streams a request body to disk. Enforces Content-Length (when sent), the per-blob maximum
	 * and the total-disk maximum; the previous bytes of the content stay until the new ones are
	 * complete. Returns the stored size.
	 */
	async receive(contentId: string, request: IncomingMessage): Promise<number> {
		const lengthHeader = request.headers['content-length'];
		const declared = lengthHeader === undefined ? undefined : Number(lengthHeader);
		if (declared !== undefined && (!Number.isSafeInteger(declared) || declared < 0)) {
			throw badRequest('Invalid Content-Length');
		}

		const previous = this.sizes.get(contentId) ?? 0;
		const allowed = Math.min(this.maxBlobBytes, this.maxTotalBytes - this.totalBytes + previous);
		const tooLarge = (): HttpError => new HttpError(
			413,
			'REQUEST_BODY_TOO_LARGE',
			allowed < this.maxBlobBytes
				? `The local platform's blob storage is full (${this.maxTotalBytes} bytes in total)`
				: `Blob exceeds the maximum size of ${this.maxBlobBytes} bytes`,
		);
		if (declared !== undefined && declared > allowed) {
			throw tooLarge();
		}

		const partPath = path.join(this.directory, `${contentId}.${++this.uploadSequence}.part`);
		let received = 0;
		const counter = new Transform({
			transform(chunk: Buffer, _encoding, callback) {
				received += chunk.length;
				if (received > allowed) {
					callback(tooLarge());
					return;
				}

				callback(null, chunk);
			},
		});

		// The request is piped by hand (not through pipeline) so that an oversized body does not
		// destroy the socket: the rest is drained and the 413 answer can still be sent.
		const written = pipeline(counter, createWriteStream(partPath, {mode: 0o600}));
		const onError = (error: Error): void => {
			counter.destroy(error);
		};

		const onClose = (): void => {
			if (!request.complete) {
				counter.destroy(new Error('the client closed the connection'));
			}
		};

		request.on('error', onError);
		request.on('close', onClose);
		request.pipe(counter);
		try {
			await written;
		} catch (error) {
			request.unpipe(counter);
			request.resume();
			await rm(partPath, {force: true});
			if (error instanceof HttpError) {
				throw error;
			}

			throw new HttpError(400, 'UPLOAD_INCOMPLETE', `Upload did not complete: ${errorMessage(error)}`);
		} finally {
			request.off('error', onError);
			request.off('close', onClose);
		}

		if (declared !== undefined && received !== declared) {
			await rm(partPath, {force: true});
			throw new HttpError(400, 'CONTENT_LENGTH_MISMATCH', `Received ${received} bytes but Content-Length was ${declared}`);
		}

		await rename(partPath, this.pathOf(contentId));
		this.totalBytes += received - previous;
		this.sizes.set(contentId, received);
		return (await stat(this.pathOf(contentId))).size;
	}

	async remove(contentId: string): Promise<void> {
		const size = this.sizes.get(contentId);
		if (size !== undefined) {
			this.totalBytes -= size;
			this.sizes.delete(contentId);
			await rm(this.pathOf(contentId), {force: true});
		}
	}

	async close(): Promise<void> {
		await rm(this.directory, {recursive: true, force: true});
	}
}
