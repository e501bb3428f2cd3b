/**
 * Gap accounting for the event socket: the spans with no live stream, when the platform's events
 * are gone (no replay). `covered(now)` while a stream is live keeps the last covered moment;
 * `uncovered(now)` opens a gap from it; `live(now)` closes the gap open, returning it. The last
 * covered moment is kept in a file of the data directory (written at most every `persistEveryMs`,
 * and at once on a stream's open and close), so the downtime of a process killed with -9 is a gap
 * reported by the next start.
 */
import {readFileSync, renameSync} from 'node:fs';
import path from 'node:path';
import {writePrivateFileSync} from '../../private-files.js';

export type Gap = {from: number; to: number};

export type CoverageTotals = {gaps: number; uncoveredMs: number; lastGap?: Gap};

export const coverageFileName = 'listen-coverage.json';

/** The last covered moment a previous run left in `directory` (ms), if any. */
export function readCoveredUntil(directory: string): number | undefined {
	try {
		const parsed = JSON.parse(readFileSync(path.join(directory, coverageFileName), 'utf8')) as unknown;
		const value = typeof parsed === 'object' && parsed !== null ? (parsed as {coveredUntil?: unknown}).coveredUntil : undefined;
		const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
		return Number.isNaN(ms) ? undefined : ms;
	} catch {
		return undefined;
	}
}

export class Coverage {
	private readonly totals: CoverageTotals = {gaps: 0, uncoveredMs: 0};
	/** Start of the gap now open; undefined while covered (or before anything was ever covered). */
	private gapFrom: number | undefined;
	private lastCovered: number | undefined;
	private lastWritten = 0;

	/**
	 * @param directory where the last covered moment is kept (undefined: nowhere)
	 * @param previous the last covered moment of a previous run: the gap from it is open until a stream is live
	 */
	constructor(private readonly directory: string | undefined, previous: number | undefined, private readonly persistEveryMs = 1000) {
		this.gapFrom = previous;
	}

	get state(): CoverageTotals {
		return {...this.totals, ...(this.totals.lastGap ? {lastGap: {...this.totals.lastGap}} : {})};
	}

	/** Whether a gap is open now (its start). */
	get openGap(): number | undefined {
		return this.gapFrom;
	}

	/** A stream is live at `now`; written at most every `persistEveryMs` unless `force`. */
	covered(now: number, force = false): void {
		this.lastCovered = now;
		if (force || now - this.lastWritten >= this.persistEveryMs) {
			this.persist(now);
		}
	}

	/** No stream is live from the last covered moment on (or `now`, when nothing was covered yet). */
	uncovered(now: number): void {
		if (this.gapFrom !== undefined) {
			return;
		}

		this.gapFrom = this.lastCovered ?? now;
		if (this.lastCovered !== undefined) {
			this.persist(this.lastCovered);
		}
	}

	/** A stream is live at `now`: the gap open (if any) ends here and is returned. */
	live(now: number): Gap | undefined {
		const from = this.gapFrom;
		this.gapFrom = undefined;
		this.covered(now, true);
		if (from === undefined) {
			return undefined;
		}

		const gap = {from, to: Math.max(from, now)};
		this.totals.gaps++;
		this.totals.uncoveredMs += gap.to - gap.from;
		this.totals.lastGap = gap;
		return gap;
	}

	/** Total uncovered time, the gap open now included. */
	uncoveredMs(now: number): number {
		return this.totals.uncoveredMs + (this.gapFrom === undefined ? 0 : Math.max(0, now - this.gapFrom));
	}

	private persist(at: number): void {
		this.lastWritten = at;
		if (this.directory === undefined) {
			return;
		}

		const file = path.join(this.directory, coverageFileName);
		try {
			// Written aside, then renamed: a crash mid-write leaves the previous moment, never half a file.
			writePrivateFileSync(`${file}.tmp`, JSON.stringify({coveredUntil: new Date(at).toISOString()}));
			renameSync(`${file}.tmp`, file);
		} catch {
			// A full or read-only disk: the next start may report a smaller downtime gap, nothing else is lost.
		}
	}
}
