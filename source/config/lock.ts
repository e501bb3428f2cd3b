/**
 * The one lock of the config file (proper-lockfile: a `config.json.lock` folder, refreshed while
 * held, taken over when stale). Every write of the file and every key rotation holds it, so a
 * read-modify-write in one process never overwrites another's.
 */
import {errorCode} from '../format/value.js';
import {ConfigLockedError} from './errors.js';

export type LockOptions = {
	/** How long to wait for another process's lock before giving up. */
	waitMs?: number;
};

/** A lock not refreshed for this long belongs to a process that died; it is taken over. */
const staleMs = 10_000;
export const defaultLockWaitMs = 15_000;

function lockPath(file: string): string {
	return `${file}.lock`;
}

function lockOptions(file: string) {
	return {realpath: false, stale: staleMs, lockfilePath: lockPath(file)};
}

function lockedError(file: string, waitedMs: number, cause?: unknown): ConfigLockedError {
	return new ConfigLockedError({file, lockPath: lockPath(file), waitedMs}, cause);
}

function pause(attempt: number): number {
	return Math.min(200, 5 * (2 ** Math.min(attempt, 6))) * (0.5 + Math.random());
}

/** Runs `action` holding the lock for as long as it takes (the lock is refreshed meanwhile). */
export async function withLock<T>(file: string, action: () => Promise<T>, options: LockOptions = {}): Promise<T> {
	// Another holder in this process lets go while this one waits (the wait does not block).
	const waitMs = options.waitMs ?? defaultLockWaitMs;
	const started = Date.now();
	let release: (() => Promise<void>) | undefined;
	// Loaded here, not at the top: commands that only read settings (upload, serve) never lock, and
	// proper-lockfile with graceful-fs and signal-exit costs 15–20 ms of their start-up.
	const {default: lockfile} = await import('proper-lockfile');
	for (let attempt = 0; release === undefined; attempt++) {
		try {
			release = await lockfile.lock(file, {...lockOptions(file), onCompromised() {
				// The lock folder vanished or was taken over while held (a clock jump, a manual delete).
				// The write under it re-checks the key it read, so nothing is overwritten blindly.
			}});
		} catch (error) {
			if (errorCode(error) !== 'ELOCKED') {
				throw error;
			}

			if (Date.now() - started >= waitMs) {
				throw lockedError(file, Date.now() - started, error);
			}

			await new Promise(resolve => {
				setTimeout(resolve, pause(attempt));
			});
		}
	}

	try {
		return await action();
	} finally {
		await release().catch(() => undefined);
	}
}
