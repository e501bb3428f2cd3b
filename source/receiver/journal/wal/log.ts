/**
 * The journal's write-ahead log, `events.wal` beside `data.mdb`: a new event is acknowledged once
 * its entry (entries.ts) is flushed here, and reaches LMDB a moment later with the others of its
 * moment (apply.ts).
 *
 * Why: an LMDB commit flushes twice (its pages, then its meta page), and its pages are scattered
 * over the file, one disk request each; one commit per group of deliveries made that the bulk of
 * the journal's cost. Here a group of deliveries is one write at the end of the log and one
 * `fdatasync`, into space written with zeros beforehand, so the flush records no new blocks; LMDB
 * then commits many groups at once.
 *
 * The entries of one event-loop turn are written together once the flush before them returns
 * (group commit). The file grows (zeros written ahead of the entries) up to `maxBytes`, the disk
 * reserve allowing; it is written from its start again (a new lap) once LMDB holds every entry in
 * it: at once when that is so and the lap has passed `lapBytes`, or, at `maxBytes`, after asking
 * LMDB to take in what waits.
 */
import {closeSync, constants, fdatasync, fstatSync, openSync, writeSync, writevSync} from 'node:fs';
import {privateFileMode} from '../../../private-files.js';
import {encodeEntry} from './entries.js';

export type LogGate = {
	/** The highest sequence number LMDB holds, flushed. */
	applied(): number;
	/** Has LMDB take in every entry given so far; resolves once that commit is flushed. */
	applyAll(): Promise<void>;
	/** Whether the disk may give `bytes` more to the log (the disk reserve). */
	mayGrow(bytes: number): boolean;
};

export type LogLimits = {
	/** Past this many bytes a lap starts again whenever LMDB holds every entry. Default 256 KiB. */
	lapBytes?: number;
	/** The file grows to this size at most (beyond it only for a group larger than the file). Default 16 MiB. */
	maxBytes?: number;
};

const growStep = 256 * 1024;
const zeros = Buffer.alloc(growStep);

/** The flush of one group of entries: its promise is every entry's. */
class Group {
	readonly flushed: Promise<void>;
	entries: Buffer[] = [];
	bytes = 0;
	resolve!: () => void;
	reject!: (error: unknown) => void;

	constructor() {
		this.flushed = new Promise<void>((resolve, reject) => {
			this.resolve = resolve;
			this.reject = reject;
		});
		// Each entry's caller handles its rejection; an unobserved one is no crash.
		this.flushed.catch(() => undefined);
	}
}

export class WriteAheadLog {
	private readonly fd: number;
	private readonly lapBytes: number;
	private readonly maxBytes: number;
	/** Bytes of the file written with zeros or entries (the flush then records no new blocks below it). */
	private size: number;
	private position = 0;
	/** The highest sequence number written into the file. */
	private written: number;
	private entries: Buffer[] = [];
	private bytes = 0;
	private group: Group | undefined;
	private flushing = false;
	private closed = false;
	/** The highest sequence number given to an entry. */
	private taken: number;
	private idle: (() => void) | undefined;
	private inFlight: Group | undefined;

	/** `lastSeq`: the highest sequence number the file or LMDB holds; the next entry has the one after it. */
	constructor(readonly file: string, lastSeq: number, private readonly gate: LogGate, limits: LogLimits = {}) {
		this.fd = openSync(file, constants.O_RDWR | constants.O_CREAT, privateFileMode);
		this.size = fstatSync(this.fd).size;
		this.written = lastSeq;
		this.taken = lastSeq;
		this.lapBytes = limits.lapBytes ?? 256 * 1024;
		this.maxBytes = limits.maxBytes ?? 16 * 1024 * 1024;
	}

	/** The sequence number of the entry appended last. */
	get lastSeq(): number {
		return this.taken;
	}

	/**
	 * Queues the entry of a new event for the next group (its number: `lastSeq`); resolves once it is
	 * flushed. `record`: its stored tuple as the `events` database encodes it.
	 */
	append(ms: number, queued: boolean, record: Uint8Array): Promise<void> {
		const entry = encodeEntry(this.taken + 1, ms, queued, record);
		this.taken++;
		this.entries.push(entry);
		this.bytes += entry.length;
		let group = this.group;
		if (!group) {
			group = new Group();
			this.group = group;
			if (!this.flushing) {
				this.flushing = true;
				setImmediate(() => {
					this.next();
				});
			}
		}

		return group.flushed;
	}

	/** Closes the file once the flush under way returns; entries still waiting are refused. */
	async close(): Promise<void> {
		if (this.closed) {
			return;
		}

		this.closed = true;
		if (this.flushing) {
			await new Promise<void>(resolve => {
				this.idle = resolve;
			});
		}

		closeSync(this.fd);
	}

	/** Writes and flushes the group waiting, if any; the group after it waits till the flush returns. */
	private next(): void {
		const group = this.group;
		if (!group || this.closed) {
			this.flushing = false;
			group?.reject(new Error('the journal is closed'));
			this.group = undefined;
			this.idle?.();
			return;
		}

		group.entries = this.entries;
		group.bytes = this.bytes;
		this.group = undefined;
		this.entries = [];
		this.bytes = 0;
		try {
			const room = this.room(group.bytes);
			if (room === true) {
				this.write(group);
			} else {
				room.then(() => {
					this.write(group);
				}).catch((error: unknown) => {
					this.failed(group, error);
				});
			}
		} catch (error) {
			this.failed(group, error);
		}
	}

	private write(group: Group): void {
		const written = writevSync(this.fd, group.entries, this.position);
		if (written !== group.bytes) {
			throw new Error(`the write-ahead log ${this.file} took ${written} of ${group.bytes} bytes`);
		}

		this.position += group.bytes;
		this.written += group.entries.length;
		this.inFlight = group;
		fdatasync(this.fd, this.onFlushed);
	}

	/** The flush of the group in flight returned (one callback for every group: no closure per flush). */
	private readonly onFlushed = (error: NodeJS.ErrnoException | null): void => {
		const group = this.inFlight;
		this.inFlight = undefined;
		if (error) {
			group?.reject(error);
		} else {
			group?.resolve();
		}

		this.next();
	};

	/** The group's entries are written again, first, with the next group: the file never holds an entry without those before it. */
	private failed(group: Group, error: unknown): void {
		this.entries = [...group.entries, ...this.entries];
		this.bytes += group.bytes;
		group.reject(error);
		if (this.group) {
			this.next();
		} else {
			this.flushing = false;
			this.idle?.();
		}
	}

	/** Makes room for `bytes` at the position: true at once, or once LMDB holds every entry and a lap starts. */
	private room(bytes: number): true | Promise<void> {
		const everyEntryApplied = this.gate.applied() >= this.written;
		if (everyEntryApplied && this.position >= this.lapBytes) {
			this.position = 0;
		}

		const end = this.position + bytes;
		if (end <= this.size) {
			return true;
		}

		const target = Math.max(end, Math.min(this.maxBytes, this.size + Math.max(growStep, this.size)));
		if ((target <= this.maxBytes || this.position === 0) && this.gate.mayGrow(target - this.size)) {
			this.grow(target);
			return true;
		}

		if (this.position === 0) {
			throw new Error(`the write-ahead log ${this.file} cannot grow: the disk is full`);
		}

		return this.gate.applyAll().then(() => {
			this.position = 0;
			if (bytes > this.size) {
				this.grow(bytes);
			}
		});
	}

	/** Writes zeros from the file's end up to `target` bytes (flushed with the entries that follow). */
	private grow(target: number): void {
		while (this.size < target) {
			const length = Math.min(zeros.length, target - this.size);
			this.size += writeSync(this.fd, zeros, 0, length, this.size);
		}
	}
}
