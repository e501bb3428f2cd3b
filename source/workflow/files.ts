import type {Dirent} from 'node:fs';
import {open, readdir, stat} from 'node:fs/promises';
import path from 'node:path';
import {errorCode} from '../format/value.js';
import {compareCodePoints, NoFilesFoundError, NotADirectoryError, UnreadableFilesError} from './errors.js';

export type FolderFile = {
	/** The entry name, used as the content key and title. */
	name: string;
	/** Absolute path on disk. */
	path: string;
	size: number;
	mimeType: string;
};

/** Why an entry of the folder is not uploaded. */
/** `filtered`: left out by --include / --exclude. */
export type SkipKind = 'dotfile' | 'folder' | 'symlink-to-folder' | 'broken-symlink' | 'fifo' | 'socket' | 'device' | 'filtered' | 'too-recent' | 'other';

export type SkippedEntry = {name: string; kind: SkipKind};

export type FolderScan = {files: FolderFile[]; skipped: SkippedEntry[]};

export const fallbackMimeType = 'application/octet-stream';

type Lookup = (fileName: string) => string | false;
let lookup: Lookup | undefined;

/** The MIME type for a file name (mime-types, loaded on first use), falling back to application/octet-stream. */
export async function mimeTypeFor(fileName: string): Promise<string> {
	lookup ??= (await import('mime-types')).default.lookup;
	return lookup(fileName) || fallbackMimeType;
}

function kindOf(entry: {isFIFO(): boolean; isSocket(): boolean; isBlockDevice(): boolean; isCharacterDevice(): boolean}): SkipKind {
	if (entry.isFIFO()) {
		return 'fifo';
	}

	if (entry.isSocket()) {
		return 'socket';
	}

	return entry.isBlockDevice() || entry.isCharacterDevice() ? 'device' : 'other';
}

/** The entries of a folder; NotADirectoryError when it is missing or not a folder. */
export async function readFolder(folder: string, absolute: string): Promise<Dirent[]> {
	try {
		const info = await stat(absolute);
		if (!info.isDirectory()) {
			throw new NotADirectoryError(folder, 'not-a-directory');
		}

		return await readdir(absolute, {withFileTypes: true});
	} catch (error) {
		if (error instanceof NotADirectoryError) {
			throw error;
		}

		const code = errorCode(error);
		if (code === 'ENOENT') {
			throw new NotADirectoryError(folder, 'missing');
		}

		if (code === 'ENOTDIR') {
			throw new NotADirectoryError(folder, 'not-a-directory');
		}

		throw error;
	}
}

/**
 * The entries of a folder (spec §4.3 step 2): the files that are uploaded (regular, non-directory
 * entries whose names do not begin with a dot, in ascending code-point order; a symbolic link
 * counts when it points at a regular file) and the entries skipped, with why. Throws
 * NotADirectoryError when `folder` is not a directory and NoFilesFoundError when no entry qualifies.
 */
export async function scanFolder(folder: string): Promise<FolderScan> {
	const absolute = path.resolve(folder);
	const entries = await readFolder(folder, absolute);
	const files: FolderFile[] = [];
	const skipped: SkippedEntry[] = [];
	const candidates = entries.filter(entry => {
		if (entry.name.startsWith('.')) {
			skipped.push({name: entry.name, kind: 'dotfile'});
			return false;
		}

		if (entry.isDirectory()) {
			skipped.push({name: entry.name, kind: 'folder'});
			return false;
		}

		if (!entry.isFile() && !entry.isSymbolicLink()) {
			skipped.push({name: entry.name, kind: kindOf(entry)});
			return false;
		}

		return true;
	});
	const infos = await Promise.all(candidates.map(async entry => stat(path.join(absolute, entry.name)).catch(() => undefined)));
	for (const [index, entry] of candidates.entries()) {
		const info = infos[index];
		if (info?.isFile()) {
			files.push({name: entry.name, path: path.join(absolute, entry.name), size: info.size, mimeType: await mimeTypeFor(entry.name)});
		} else {
			skipped.push({name: entry.name, kind: info === undefined ? 'broken-symlink' : (info.isDirectory() ? 'symlink-to-folder' : kindOf(info))});
		}
	}

	if (files.length === 0) {
		throw new NoFilesFoundError(folder);
	}

	skipped.sort((a, b) => compareCodePoints(a.name, b.name));
	return {files: files.sort((a, b) => compareCodePoints(a.name, b.name)), skipped};
}

/** Opens every file for reading (a few at a time) and throws UnreadableFilesError naming each one that cannot be. */
export async function checkReadable(folder: string, files: readonly FolderFile[], parallelism = 16): Promise<void> {
	const unreadable: Array<{name: string; path: string; reason: string}> = [];
	let next = 0;
	const worker = async (): Promise<void> => {
		for (let file = files[next++]; file !== undefined; file = files[next++]) {
			try {
				const handle = await open(file.path, 'r');
				await handle.close();
			} catch (error) {
				unreadable.push({name: file.name, path: file.path, reason: errorCode(error) ?? 'cannot be opened'});
			}
		}
	};

	await Promise.all(Array.from({length: Math.min(parallelism, files.length)}, worker));
	if (unreadable.length > 0) {
		unreadable.sort((a, b) => compareCodePoints(a.name, b.name));
		throw new UnreadableFilesError(folder, unreadable);
	}
}
