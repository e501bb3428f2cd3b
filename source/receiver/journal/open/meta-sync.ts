/**
 * One flush per journal commit. LMDB's durable commit flushes twice: the data pages, then the meta
 * page that makes them the current state. Opened with `noMetaSync`, a commit flushes its data
 * pages only and writes its meta page unflushed: the commit is whole and consistent, but an OS
 * crash or power cut may undo it until its meta page reaches the disk. So a write here resolves
 * only once its commit's meta page is on disk:
 *
 * - carried by a later commit: the data flush of any commit started after this one finished
 *   covers this one's meta page (the same file, written before that flush). A write issued after
 *   a commit finished can only belong to a later commit, so its resolution releases every write
 *   that finished before it was issued;
 * - or, when no write was issued by the time the event loop has nothing else to do, by one flush
 *   of the file of its own (`fdatasync`), which releases every write that finished before it began.
 *
 * Under load each commit's flush carries the one before it; an isolated commit costs the two
 * flushes it cost before, one after the other.
 */
import {closeSync, fdatasync, openSync} from 'node:fs';
import {errorMessage} from '../../../format/value.js';

type Release = (failure?: unknown) => void;

/** Flushes a file's written pages to disk (`fdatasync` of an fd of its own, opened once). */
export type FlushFile = () => Promise<void>;

/** `fdatasync` of `file` through a read-only descriptor, opened on the first flush; `close` closes it. */
export function fileFlusher(file: string): FlushFile & {close(): void} {
	let fd: number | undefined;
	const flush = async () => new Promise<void>((resolve, reject) => {
		fd ??= openSync(file, 'r');
		fdatasync(fd, error => {
			if (error) {
				reject(error);
			} else {
				resolve();
			}
		});
	});
	return Object.assign(flush, {
		close() {
			if (fd !== undefined) {
				closeSync(fd);
				fd = undefined;
			}
		},
	});
}

export class MetaSync {
	/** Writes whose commit finished and whose meta page is not known to be on disk, oldest first. */
	private waiting: Release[] = [];
	/** Whether a write was issued since the last one joined `waiting` (it will carry them). */
	private carrierIssued = false;
	private syncScheduled = false;

	constructor(private readonly flushFile: FlushFile) {}

	/** Issues a write (`issue` returns LMDB's promise of its commit); resolves once its meta page is flushed. */
	async write<T>(issue: () => Promise<T>): Promise<T> {
		const carried = this.waiting;
		this.waiting = [];
		this.carrierIssued = true;
		let result: T;
		try {
			result = await issue();
		} catch (error) {
			// No commit carried them: they wait for a write issued from now on, or a flush of their own.
			this.waiting.unshift(...carried);
			this.carrierIssued = false;
			this.schedule();
			throw error;
		}

		for (const release of carried) {
			release();
		}

		return new Promise<T>((resolve, reject) => {
			this.waiting.push(failure => {
				if (failure === undefined) {
					resolve(result);
				} else {
					reject(failure instanceof Error ? failure : new Error(errorMessage(failure)));
				}
			});
			this.carrierIssued = false;
			this.schedule();
		});
	}

	/** Flushes what is waiting now (the journal closes). */
	async flush(): Promise<void> {
		if (this.waiting.length > 0) {
			await this.sync();
		}
	}

	/** Once the event loop has nothing else to do: a flush of their own unless a write was issued since. */
	private schedule(): void {
		if (this.syncScheduled) {
			return;
		}

		this.syncScheduled = true;
		setImmediate(() => {
			this.syncScheduled = false;
			if (!this.carrierIssued && this.waiting.length > 0) {
				void this.sync();
			}
		});
	}

	private async sync(): Promise<void> {
		const released = this.waiting;
		this.waiting = [];
		let failure: unknown;
		try {
			await this.flushFile();
		} catch (error) {
			failure = error;
		}

		for (const release of released) {
			release(failure);
		}
	}
}
