/**
 * SHA-256 of a file, read with plain reads (never mapped): the upload sync's file hashes and the
 * journal's clean-stop seal.
 */
import {createHash} from 'node:crypto';
import {open} from 'node:fs/promises';

const hashChunkBytes = 256 * 1024;

/**
 * SHA-256 of a file's bytes, streamed through one reused buffer: memory stays flat whatever the
 * file's size (a stream would allocate a new chunk per read and leave the collector behind).
 */
export async function sha256File(filePath: string): Promise<string> {
	const hash = createHash('sha256');
	const handle = await open(filePath, 'r');
	try {
		const buffer = Buffer.allocUnsafe(hashChunkBytes);
		for (;;) {
			const {bytesRead} = await handle.read(buffer, 0, buffer.length, null);
			if (bytesRead === 0) {
				break;
			}

			hash.update(buffer.subarray(0, bytesRead));
		}
	} finally {
		await handle.close();
	}

	return hash.digest('hex');
}
