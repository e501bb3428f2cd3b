/**
 * Private at rest: every folder the program makes for data or settings is 0700 and every file it
 * writes there 0600, whatever the umask (the event journal and its side files, upload manifests,
 * exports, the config folder). The one rule; the journal, the manifests, the config and the
 * exports call these rather than mkdir and writeFile.
 */
import {chmodSync, closeSync, existsSync, fchmodSync, mkdirSync, openSync, statSync, writeFileSync} from 'node:fs';
import {open} from 'node:fs/promises';
import path from 'node:path';

export const privateDirMode = 0o700;
export const privateFileMode = 0o600;

/**
 * Makes `folder` and its missing parents, each 0700 whatever the umask (mkdir gives at most that,
 * the umask can only take bits away; each folder it made is then set exactly). An existing folder
 * is left as it is (the warning of private-folder.ts tells its owner).
 *
 * One folder at a time, from the first missing one down, rather than Node's recursive mkdir: that
 * one never returns under a file system that refuses a new folder with ENOENT while its parent
 * exists (a path under /proc), spinning a CPU with the event loop blocked, so not even SIGTERM
 * ends it. Here that refusal is thrown as it comes.
 */
export function makePrivateDir(folder: string): void {
	const missing: string[] = [];
	for (let current = path.resolve(folder); !existsSync(current); current = path.dirname(current)) {
		missing.push(current);
		if (path.dirname(current) === current) {
			break;
		}
	}

	if (missing.length === 0 && !statSync(folder).isDirectory()) {
		// A file where the folder should be: refused as mkdir refuses it (EEXIST).
		mkdirSync(folder);
	}

	for (const current of missing.reverse()) {
		try {
			mkdirSync(current, {mode: privateDirMode});
		} catch (error) {
			// Made meanwhile by another process: it is that one's, and left as it is.
			if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
				continue;
			}

			throw error;
		}

		chmodSync(current, privateDirMode);
	}
}

/**
 * Opens `file` for writing as a private file: made 0600, and an existing file set to 0600 before
 * a byte is written, so no moment leaves new data readable by others. Returns the descriptor.
 */
export function openPrivateFile(file: string, flags: 'w' | 'wx' | 'r+' = 'w'): number {
	const fd = openSync(file, flags, privateFileMode);
	try {
		fchmodSync(fd, privateFileMode);
	} catch (error) {
		closeSync(fd);
		throw error;
	}

	return fd;
}

/** Writes `data` to `file` (replaced, or made with `wx` only when missing) as a private file. */
export function writePrivateFileSync(file: string, data: string | Uint8Array, flags: 'w' | 'wx' = 'w'): void {
	const fd = openPrivateFile(file, flags);
	try {
		writeFileSync(fd, data);
	} finally {
		closeSync(fd);
	}
}

/** `writePrivateFileSync`, without blocking the event loop. */
export async function writePrivateFile(file: string, data: string | Uint8Array, flags: 'w' | 'wx' = 'w'): Promise<void> {
	const handle = await open(file, flags, privateFileMode);
	try {
		await handle.chmod(privateFileMode);
		await handle.writeFile(data);
	} finally {
		await handle.close();
	}
}

/**
 * Sets an entry another program made (a Unix socket, a copy) to 0600. Only for entries inside a
 * private folder, which keeps others out until then.
 */
export function makePrivate(entry: string): void {
	chmodSync(entry, privateFileMode);
}
