import {execFileSync} from 'node:child_process';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';

/** Whether this process runs as root (tests that mount a file system or enter a PID namespace need it). */
export const isRoot = process.getuid?.() === 0;

/** Prints one line saying why a root-only test is skipped, and returns whether it runs. */
export function rootOnly(what: string): boolean {
	if (!isRoot) {
		console.log(`${what} skipped: it needs root.`);
	}

	return isRoot;
}

/** A tmpfs of `bytes` mounted on a fresh temp dir, private to this user (a tmpfs is 1777 unless told, which serve refuses); `unmount` removes it. */
export function mountTmpfs(bytes: number): {directory: string; unmount(): void} {
	const directory = mkdtempSync(path.join(tmpdir(), 'platform-tui-tmpfs-'));
	execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0700`, 'tmpfs', directory]);
	return {
		directory,
		unmount() {
			execFileSync('umount', ['-l', directory]);
			rmSync(directory, {recursive: true, force: true});
		},
	};
}
