/** Whether the journal's directory takes writes now: a small file written and removed in it. */
import {accessSync, constants, existsSync, unlinkSync} from 'node:fs';
import path from 'node:path';
import {errorMessage} from '../../../format/value.js';
import {writePrivateFileSync} from '../../../private-files.js';

/**
 * Why this process may not write `folder` (and the journal's data file when it exists): `user`
 * (permissions) or `file-system` (mounted read-only, EROFS); undefined when it may.
 */
export function readOnlyCause(folder: string, file?: string): 'user' | 'file-system' | undefined {
	try {
		accessSync(folder, constants.W_OK);
		if (file !== undefined && existsSync(file)) {
			accessSync(file, constants.W_OK);
		}

		return undefined;
	} catch (error) {
		return (error as NodeJS.ErrnoException).code === 'EROFS' ? 'file-system' : 'user';
	}
}

/** The refusal of a journal this process may not write, naming a read-only file system as such. */
export function readOnlyText(folder: string, cause: 'user' | 'file-system'): string {
	return cause === 'file-system' ? `the journal in ${folder} is on a read-only file system` : `the journal in ${folder} cannot be written by this user`;
}

/** Undefined when the directory is writable, else why not. */
export function unwritableReason(directory: string): string | undefined {
	const probe = path.join(directory, '.writable-check');
	try {
		writePrivateFileSync(probe, String(process.pid));
		unlinkSync(probe);
		return undefined;
	} catch (error) {
		return `the journal in ${directory} cannot be written: ${errorMessage(error)}`;
	}
}
