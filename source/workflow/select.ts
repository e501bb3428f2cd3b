/**
 * Which files of a folder a sync uploads: the folder alone (spec §4.3's list) or, with
 * `recursive`, its subfolders too (keys are paths relative to the folder, joined with `/`), then
 * narrowed by `--include` / `--exclude` globs (picomatch) matched against the key.
 */
import type {Dirent} from 'node:fs';
import {readdir, stat} from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import {compareCodePoints, NoFilesFoundError, NoFilesMatchError} from './errors.js';
import {eachLimit} from './ingestion.js';
import {mimeTypeFor, readFolder, scanFolder, type FolderFile, type FolderScan, type SkippedEntry} from './files.js';

export type Selection = {
	/** Walk subfolders; keys become relative paths with `/`. */
	recursive?: boolean;
	/** Keep only keys matching one of these globs (all keys when empty). */
	include?: readonly string[];
	/** Drop keys matching one of these globs. */
	exclude?: readonly string[];
	/** `--min-age`: hold back files modified less than this long ago (still being written). */
	minAgeMs?: number;
};

/** Most entries a recursive walk reads before it stops with an error (a bound on every loop). */
export const maxWalkEntries = 100_000;

/** True when the selection changes nothing of spec §4.3's file list. */
export function isPlainSelection(selection: Selection): boolean {
	return !selection.recursive && (selection.include ?? []).length === 0 && (selection.exclude ?? []).length === 0;
}

/** Why `glob` is not a valid glob (an unclosed `[`, `{` or `(`), or undefined when it is one. */
export function checkGlob(glob: string): string | undefined {
	try {
		picomatch.makeRe(glob, {strictBrackets: true});
		return undefined;
	} catch (error) {
		return (error as Error).message.replace(/ - use .*$/, '').replaceAll('"', '');
	}
}

/** The predicate of `--include` / `--exclude` over keys. */
export function keyFilter(selection: Selection): (key: string) => boolean {
	const include = selection.include ?? [];
	const exclude = selection.exclude ?? [];
	const included = include.length > 0 ? picomatch([...include]) : () => true;
	const excluded = exclude.length > 0 ? picomatch([...exclude]) : () => false;
	return key => included(key) && !excluded(key);
}

/**
 * Whether a key (of a chat's manifest) is one this selection could pick: no dotted part, no
 * subfolder without `recursive`, and through the globs. `check` reports only such keys as on the
 * chat alone, as rclone's filters apply to both sides.
 */
export function selectsKey(selection: Selection): (key: string) => boolean {
	const keep = keyFilter(selection);
	return key => {
		const parts = key.split('/');
		return (selection.recursive === true || parts.length === 1) && !parts.some(part => part.startsWith('.')) && keep(key);
	};
}

/** Walks `folder` below `prefix` (already checked to be a directory), adding into `files` and `skipped`. */
async function walk(root: string, prefix: string, files: FolderFile[], skipped: SkippedEntry[], budget: {left: number}, read?: Dirent[]): Promise<void> {
	const entries = read ?? await readdir(path.join(root, prefix), {withFileTypes: true});
	budget.left -= entries.length;
	if (budget.left < 0) {
		throw new RangeError(`More than ${maxWalkEntries} entries under ${root}; narrow the folder or drop --recursive`);
	}

	for (const entry of entries) {
		const key = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
		if (entry.name.startsWith('.')) {
			skipped.push({name: key, kind: 'dotfile'});
			continue;
		}

		if (entry.isDirectory()) {
			await walk(root, key, files, skipped, budget);
			continue;
		}

		const absolute = path.join(root, ...key.split('/'));
		const info = entry.isFile() || entry.isSymbolicLink() ? await stat(absolute).catch(() => undefined) : undefined;
		if (info?.isFile()) {
			files.push({name: key, path: absolute, size: info.size, mimeType: await mimeTypeFor(entry.name)});
		} else if (entry.isSymbolicLink()) {
			// Links to folders are not followed: a link back up would never end.
			skipped.push({name: key, kind: info === undefined ? 'broken-symlink' : (info.isDirectory() ? 'symlink-to-folder' : 'other')});
		} else {
			skipped.push({name: key, kind: entry.isFIFO() ? 'fifo' : (entry.isSocket() ? 'socket' : (entry.isBlockDevice() || entry.isCharacterDevice() ? 'device' : 'other'))});
		}
	}
}

/**
 * The files a run uploads. Without a selection this is exactly `scanFolder` (spec §4.3). Keys left
 * out by the globs are listed as skipped (`filtered`); none left is NoFilesFoundError.
 */
export async function selectFiles(folder: string, selection: Selection = {}, now: number = Date.now()): Promise<FolderScan> {
	const scan = await selectByName(folder, selection);
	const minAgeMs = selection.minAgeMs ?? 0;
	if (minAgeMs <= 0) {
		return scan;
	}

	const young = new Set<string>();
	await eachLimit(scan.files, 16, async file => {
		const info = await stat(file.path).catch(() => undefined);
		if (info !== undefined && now - info.mtimeMs < minAgeMs) {
			young.add(file.name);
		}
	});
	const files = scan.files.filter(file => !young.has(file.name));
	if (files.length === 0) {
		throw new NoFilesFoundError(folder);
	}

	const skipped = [...scan.skipped, ...[...young].map(name => ({name, kind: 'too-recent' as const}))].sort((a, b) => compareCodePoints(a.name, b.name));
	return {files, skipped};
}

async function selectByName(folder: string, selection: Selection): Promise<FolderScan> {
	if (isPlainSelection(selection)) {
		return scanFolder(folder);
	}

	let scan: FolderScan;
	if (selection.recursive) {
		// The top level is read by scanFolder's rules, so a missing folder reads the same.
		const root = path.resolve(folder);
		const files: FolderFile[] = [];
		const skipped: SkippedEntry[] = [];
		await walk(root, '', files, skipped, {left: maxWalkEntries}, await readFolder(folder, root));
		scan = {files, skipped};
	} else {
		scan = await scanFolder(folder).catch((error: unknown) => {
			if (error instanceof NoFilesFoundError) {
				return {files: [], skipped: []};
			}

			throw error;
		});
	}

	const keep = keyFilter(selection);
	const files = scan.files.filter(file => keep(file.name));
	const skipped = [...scan.skipped, ...scan.files.filter(file => !keep(file.name)).map(file => ({name: file.name, kind: 'filtered' as const}))];
	if (files.length === 0) {
		if (scan.files.length > 0) {
			throw new NoFilesMatchError(folder, scan.files.length, selection.include ?? [], selection.exclude ?? []);
		}

		throw new NoFilesFoundError(folder);
	}

	skipped.sort((a, b) => compareCodePoints(a.name, b.name));
	return {files: files.sort((a, b) => compareCodePoints(a.name, b.name)), skipped};
}
