/**
 * The chaos run's "disk full then freed" fault, kept apart from the harness so a fault kind can
 * call it: serve's data directory on a tmpfs of its own, filled to its last byte while the
 * harness goes on delivering, then freed. Needs root (mount); without it `mountDiskFault` returns
 * the one line the run prints for the skipped kind.
 *
 *   const disk = mountDiskFault();
 *   if ('skipped' in disk) console.log(disk.skipped); else {
 *     // start serve with --data-dir disk.directory, deliver …
 *     await disk.fullThenFreed(async () => { … deliver while full, e.g. for 60 s … });
 *     // … wait until every acknowledged event ended, count, then disk.unmount()
 *   }
 */
import {rmSync, statfsSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {isRoot, mountTmpfs} from '../support/root.js';

export type DiskFault = {
	/** serve's data directory, on the tmpfs. */
	directory: string;
	/** Free bytes now (statfs). */
	free(): number;
	/** Fills the disk to its last byte, runs `during` (the harness delivers meanwhile), then frees it. */
	fullThenFreed<T>(during: () => Promise<T>): Promise<T>;
	unmount(): void;
};

/** A tmpfs of `bytes` (default 64 MiB, room for a run's journal) for serve's data directory. */
export function mountDiskFault(bytes = 64 * 1024 * 1024): DiskFault | {skipped: string} {
	if (!isRoot) {
		return {skipped: 'chaos: disk full then freed skipped: mounting a tmpfs needs root.'};
	}

	let fs: ReturnType<typeof mountTmpfs>;
	try {
		fs = mountTmpfs(bytes);
	} catch (error) {
		return {skipped: `chaos: disk full then freed skipped: a tmpfs could not be mounted (${error instanceof Error ? error.message : String(error)}).`};
	}

	const free = () => {
		const stats = statfsSync(fs.directory);
		return stats.bavail * stats.bsize;
	};

	return {
		directory: fs.directory,
		free,
		async fullThenFreed(during) {
			const filler = path.join(fs.directory, 'chaos-filler');
			writeFileSync(filler, Buffer.alloc(free()));
			try {
				return await during();
			} finally {
				rmSync(filler, {force: true});
			}
		},
		unmount() {
			fs.unmount();
		},
	};
}
