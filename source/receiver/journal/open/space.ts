/**
 * The journal's disk reserve. LMDB cannot survive a failed write inside its commit: on a full disk
 * the native code aborts the process (`malloc(): corrupted top size`, SIGABRT) or leaves a write
 * rejected with nobody to catch it. So no commit is ever started that the disk may not hold: the
 * free space of the journal's file system is measured (statfs) before writes, and
 *
 * - a new event, or a new attempt at one, is refused while the free space, less what this turn's
 *   writes already take, is below the reserve (`reserveBytes`, default 2 MiB): the delivery gets
 *   503, answers pause;
 * - the journal's own bookkeeping (the owner lock, steps and final states of attempts already
 *   running, the exactly-once index, pruning) may use the reserve, down to a floor;
 * - a ballast file of `ballastBytes` kept in the journal folder is given back when the disk is
 *   below the floor (another program filled it), so the bookkeeping of a restart still fits; it is
 *   written again once space returns.
 *
 * One statfs per event-loop turn (about 3 µs): the writes of one turn share one commit.
 */
import {rmSync, statfsSync, existsSync} from 'node:fs';
import path from 'node:path';
import {formatBytes} from '../../../format/bytes.js';
import {writePrivateFileSync} from '../../../private-files.js';

export const defaultReserveBytes = 2 * 1024 * 1024;
const pageBytes = 4096;

export type SpaceSettings = {reserveBytes?: number; ballastBytes?: number; floorBytes?: number};

/** A write refused because the journal's disk is (nearly) full; nothing was written. */
export class DiskFullError extends Error {
	readonly code = 'ENOSPC';
	constructor(message: string) {
		super(message);
		this.name = 'DiskFullError';
	}
}

export class DiskSpace {
	readonly reserveBytes: number;
	private readonly ballastBytes: number;
	private readonly floorBytes: number;
	private readonly ballast: string;
	/** Free bytes measured this turn, less the estimated size of this turn's writes; undefined: measure again. */
	private left: number | undefined;
	private hasBallast: boolean;

	constructor(private readonly folder: string, settings: SpaceSettings = {}) {
		this.reserveBytes = settings.reserveBytes ?? defaultReserveBytes;
		this.ballastBytes = settings.ballastBytes ?? Math.min(512 * 1024, Math.floor(this.reserveBytes / 2));
		this.floorBytes = settings.floorBytes ?? Math.min(128 * 1024, Math.floor(this.reserveBytes / 4));
		this.ballast = path.join(folder, 'reserve.ballast');
		this.hasBallast = existsSync(this.ballast);
	}

	/** Free bytes of the journal's file system now (statfs). */
	measure(): number {
		try {
			const stats = statfsSync(this.folder);
			return stats.bavail * stats.bsize;
		} catch {
			return Number.POSITIVE_INFINITY;
		}
	}

	/** Whether a new event (or attempt) of about `bytes` may be written now; counts it against this turn. */
	admits(bytes: number): boolean {
		const left = this.available();
		const cost = estimate(bytes);
		if (left - cost < this.reserveBytes) {
			return false;
		}

		this.left = left - cost;
		this.keepBallast(left);
		return true;
	}

	/** Whether a bookkeeping write may be made now (the reserve may be used, down to the floor). */
	allowsBookkeeping(): boolean {
		let left = this.available();
		if (left < this.floorBytes && this.hasBallast) {
			rmSync(this.ballast, {force: true});
			this.hasBallast = false;
			this.left = undefined;
			left = this.available();
		}

		if (left < this.floorBytes) {
			return false;
		}

		this.left = left - pageBytes;
		return true;
	}

	/** Why new events are refused, or undefined when they are not. */
	shortage(): string | undefined {
		const free = this.measure();
		return free < this.reserveBytes
			? `the disk holding the event journal in ${this.folder} is full: ${formatBytes(free)} free, below the ${formatBytes(this.reserveBytes)} reserve kept so the journal never fails mid-commit; free some space and it resumes by itself`
			: undefined;
	}

	refused(): DiskFullError {
		return new DiskFullError(this.shortage() ?? `the disk holding the event journal in ${this.folder} is full`);
	}

	private available(): number {
		if (this.left === undefined) {
			this.left = this.measure();
			// One measurement per event-loop turn: the next turn measures again.
			setImmediate(() => {
				this.left = undefined;
			});
		}

		return this.left;
	}

	/** Writes the ballast again once there is room for it beside the reserve. */
	private keepBallast(left: number): void {
		if (this.hasBallast || this.ballastBytes <= 0 || left < this.reserveBytes + (2 * this.ballastBytes)) {
			return;
		}

		try {
			writePrivateFileSync(this.ballast, Buffer.alloc(this.ballastBytes));
			this.hasBallast = true;
			this.left = left - this.ballastBytes;
		} catch {
			rmSync(this.ballast, {force: true});
		}
	}
}

/** Disk bytes a record of `bytes` may take in one commit: its pages, copied branch pages, the free list. */
function estimate(bytes: number): number {
	return (Math.ceil(bytes / pageBytes) + 4) * pageBytes;
}
