/**
 * Whether an existing data or config folder is private to the user running the program (the
 * folders the program makes are, private-files.ts). One check for every command that keeps data:
 * a folder owned by another user, or a path through a symbolic link another user owns (who could
 * point it elsewhere at any time), is refused; a folder other users can read or write is reported
 * so the command warns once, and `serve` refuses a data folder others can write unless allowed.
 * The CLI words the errors (cli/messages/privacy.ts).
 */
import {lstatSync, readlinkSync, type Stats} from 'node:fs';
import path from 'node:path';
import {CoreError} from './core-error.js';

/** What the folder holds: the event journal and upload manifests, or the settings with the API key. */
export type FolderRole = 'data' | 'config';

export type PrivateFolderErrorData = {
	'folder-other-owner': {folder: string; role: FolderRole; owner: number};
	'folder-other-owner-link': {folder: string; role: FolderRole; link: string; owner: number};
	'data-dir-shared-writable': {folder: string; mode: number};
};

export type PrivateFolderErrorCode = keyof PrivateFolderErrorData;

export class PrivateFolderError<Code extends PrivateFolderErrorCode = PrivateFolderErrorCode> extends CoreError<Code, PrivateFolderErrorData[Code]> {}

/** An existing folder other users can enter or list (`read`) or change (`write`). */
export type SharedFolder = {folder: string; role: FolderRole; mode: number; read: boolean; write: boolean};

/** Links followed at most (the kernel's own limit), so a loop of links ends. */
const maxLinks = 40;

function ownUid(): number | undefined {
	return process.getuid?.();
}

/** A link or folder the user may trust: its own, or root's (as /var/run → /run). */
function trusted(owner: number): boolean {
	const uid = ownUid();
	return uid === undefined || owner === uid || owner === 0;
}

function lstatOrMissing(entry: string): Stats | undefined {
	try {
		return lstatSync(entry);
	} catch {
		return undefined;
	}
}

/**
 * Follows `folder` one name at a time as the kernel does, refusing a link another user owns;
 * returns what the path ends at (undefined: it does not exist yet, or it cannot be followed).
 */
function followPath(folder: string, role: FolderRole): Stats | undefined {
	const pending = path.resolve(folder).split(path.sep).filter(part => part !== '');
	let current = path.parse(path.resolve(folder)).root;
	let links = 0;
	let stats: Stats | undefined = lstatOrMissing(current);
	while (pending.length > 0) {
		const name = pending.shift() ?? '';
		if (name === '.' || name === '..') {
			current = name === '..' ? path.dirname(current) : current;
			stats = lstatOrMissing(current);
			continue;
		}

		const next = path.join(current, name);
		stats = lstatOrMissing(next);
		if (stats === undefined) {
			return undefined;
		}

		if (!stats.isSymbolicLink()) {
			current = next;
			continue;
		}

		if (!trusted(stats.uid)) {
			throw new PrivateFolderError('folder-other-owner-link', {folder, role, link: next, owner: stats.uid}, `${folder} is reached through ${next}, a link owned by user ${stats.uid}`);
		}

		if (++links > maxLinks) {
			return undefined;
		}

		const target = readlinkSync(next);
		pending.unshift(...target.split(path.sep).filter(part => part !== ''));
		current = path.isAbsolute(target) ? path.parse(target).root : current;
	}

	return stats;
}

/**
 * Refuses `folder` when another user owns it or a link on its way; undefined when it is missing,
 * not a folder (the caller's own error names that) or private; else how others can reach it.
 */
export function folderAccess(folder: string, role: FolderRole): SharedFolder | undefined {
	const stats = followPath(folder, role);
	if (stats === undefined) {
		return undefined;
	}

	const uid = ownUid();
	if (uid !== undefined && stats.uid !== uid) {
		throw new PrivateFolderError('folder-other-owner', {folder, role, owner: stats.uid}, `${folder} is owned by user ${stats.uid}`);
	}

	if (!stats.isDirectory()) {
		return undefined;
	}

	const mode = stats.mode & 0o7777;
	const read = (mode & 0o055) !== 0;
	const write = (mode & 0o022) !== 0;
	return read || write ? {folder, role, mode, read, write} : undefined;
}

/**
 * The check of a command that keeps data (`serve`; a later `listen`): each folder as
 * `folderAccess` checks it, and a data folder others can write refused unless `allowSharedData`.
 * Returns the folders others can reach, for the one warning each.
 */
export function privateFolders(folders: ReadonlyArray<{folder: string; role: FolderRole}>, options: {allowSharedData?: boolean} = {}): SharedFolder[] {
	const shared = folders.map(({folder, role}) => folderAccess(folder, role)).filter(found => found !== undefined);
	const writable = shared.find(found => found.role === 'data' && found.write);
	if (writable && !options.allowSharedData) {
		throw new PrivateFolderError('data-dir-shared-writable', {folder: writable.folder, mode: writable.mode}, `other users can write the data folder ${writable.folder}`);
	}

	return shared;
}
