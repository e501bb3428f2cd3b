import type {Dirent} from 'node:fs';
import {readdir, stat} from 'node:fs/promises';
import path from 'node:path';
import {lookup} from 'mime-types';
import {compareCodePoints, NoFilesFoundError, NotADirectoryError} from './errors.js';

export type FolderFile = {
	/** The entry name, used as the content key and title. */
	name: string;
	/** Absolute path on disk. */
	path: string;
	size: number;
	mimeType: string;
};

export const fallbackMimeType = 'application/octet-stream';

/** The MIME type for a file name (mime-types), falling back to application/octet-stream. */
export function mimeTypeFor(fileName: string): string {
	return lookup(fileName) || fallbackMimeType;
}

/**
 * The files of a folder that are uploaded (spec §4.3 step 2): regular, non-directory entries
 * whose names do not begin with a dot, in ascending code-point order of their names. A symbolic
 * link counts when it points at a regular file. Throws NotADirectoryError when `folder` is not a
 * directory and NoFilesFoundError when no entry qualifies.
 */
export async function listFolderFiles(folder: string): Promise<FolderFile[]> {
	const absolute = path.resolve(folder);
	let entries: Dirent[];
	try {
		const info = await stat(absolute);
		if (!info.isDirectory()) {
			throw new NotADirectoryError(folder, 'not-a-directory');
		}

		entries = await readdir(absolute, {withFileTypes: true});
	} catch (error) {
		if (error instanceof NotADirectoryError) {
			throw error;
		}

		const code = (error as {code?: unknown}).code;
		if (code === 'ENOENT') {
			throw new NotADirectoryError(folder, 'missing');
		}

		if (code === 'ENOTDIR') {
			throw new NotADirectoryError(folder, 'not-a-directory');
		}

		throw error;
	}

	const files: FolderFile[] = [];
	for (const entry of entries) {
		if (entry.name.startsWith('.') || entry.isDirectory()) {
			continue;
		}

		const filePath = path.join(absolute, entry.name);
		if (!entry.isFile() && !entry.isSymbolicLink()) {
			continue;
		}

		// eslint-disable-next-line no-await-in-loop
		const info = await stat(filePath).catch(() => undefined);
		if (!info?.isFile()) {
			continue;
		}

		files.push({name: entry.name, path: filePath, size: info.size, mimeType: mimeTypeFor(entry.name)});
	}

	if (files.length === 0) {
		throw new NoFilesFoundError(folder);
	}

	return files.sort((a, b) => compareCodePoints(a.name, b.name));
}
