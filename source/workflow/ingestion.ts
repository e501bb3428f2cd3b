/** Step 3 of spec §4.3: search each pending content by id until FINISHED, FAILED… or the deadline. */
import {setTimeout as sleep} from 'node:timers/promises';
import {formatSeconds} from '../format/duration.js';
import {IngestionFailedError, IngestionTimeoutError, type FileFailure} from './errors.js';
import type {UploadEventListener} from './events.js';
import {ingestionFirstMs, ingestionSteps, pollWaits} from './poll-waits.js';
import type {UploadedFile} from './transfer.js';
import type {UploadClient} from './types.js';

/** A signal that aborts with `signal` or when `ms` have passed; `expired()` tells which. */
export function until(signal: AbortSignal, ms: number): {signal: AbortSignal; expired: () => boolean} {
	const timeout = AbortSignal.timeout(Math.max(0, Math.ceil(ms)));
	return {signal: AbortSignal.any([signal, timeout]), expired: () => timeout.aborted && !signal.aborted};
}

/** Runs `task` over `items` with at most `limit` in flight; the first failure rejects at once. */
export async function eachLimit<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
	let next = 0;
	let failed = false;
	const worker = async (): Promise<void> => {
		while (!failed && next < items.length) {
			const item = items[next++] as T;
			try {
				await task(item);
			} catch (error) {
				failed = true;
				throw error;
			}
		}
	};

	await Promise.all(Array.from({length: Math.min(limit, items.length)}, worker));
}

/** How long after the first finalize the first ingestion round is due: soon, and never after one poll interval. */
export function firstRoundDelay(pollIntervalMs: number): number {
	return Math.min(pollIntervalMs, ingestionFirstMs);
}

/** One content search by id (spec §4.3 step 3): the content's ingestion state, '' when it has none, undefined when not found. */
export async function contentState(client: UploadClient, chatId: string, contentId: string, signal: AbortSignal): Promise<string | undefined> {
	const found = await client.searchContent({where: {id: {equals: contentId}}, chatId, includeFailedContent: true}, {signal});
	const record = found.find(item => item.id === contentId) ?? found[0];
	return record === undefined ? undefined : (record.ingestionState ?? '');
}

export type IngestionWait = {
	client: UploadClient;
	chatId: string;
	files: UploadedFile[];
	pollIntervalMs: number;
	timeoutMs: number;
	parallelism: number;
	keepGoing: boolean;
	signal: AbortSignal;
	emit: UploadEventListener;
	/**
	 * When the first round is due (a `performance.now()` time); at once when absent or past. The
	 * workflow passes the first file's finalize plus `firstRoundDelay`: a round just after the last
	 * finalize finds nothing ingested yet (0 of 60 in the bench) and only costs requests.
	 */
	firstRoundAt?: number | undefined;
};

/** One wait's tally: the files still pending, the last state of each, and the failures. */
class IngestionTally {
	private readonly names: Map<string, string>;
	readonly pending: Set<string>;
	private readonly lastState = new Map<string, string>();
	readonly failed: FileFailure[] = [];
	private readonly started = performance.now();

	constructor(private readonly options: IngestionWait) {
		this.names = new Map(options.files.map(file => [file.contentId, file.name]));
		this.pending = new Set(options.files.map(file => file.contentId));
	}

	elapsed(): number {
		return performance.now() - this.started;
	}

	/** Reads one content's state: a new state is said, FINISHED ends its wait, FAILED… fails it (or, without keep-going, the run). */
	async check(contentId: string, roundSignal: AbortSignal): Promise<void> {
		const {client, chatId, emit} = this.options;
		const state = await contentState(client, chatId, contentId, roundSignal);
		if (state === undefined) {
			return;
		}

		const name = this.names.get(contentId) ?? contentId;
		const isFailed = state.startsWith('FAILED');
		if (state !== '' && this.lastState.get(contentId) !== state) {
			this.lastState.set(contentId, state);
			emit({type: 'ingestion-state', contentId, name, state, final: state === 'FINISHED' || isFailed});
		}

		if (state === 'FINISHED') {
			this.pending.delete(contentId);
		} else if (isFailed) {
			if (!this.options.keepGoing) {
				throw new IngestionFailedError(contentId, name, state);
			}

			this.pending.delete(contentId);
			this.failed.push({name, contentId, stage: 'ingestion', reason: state});
		}
	}

	/** The deadline passed: without keep-going the run fails; with it, what is still pending fails. */
	timedOut(): FileFailure[] {
		const {timeoutMs} = this.options;
		if (!this.options.keepGoing) {
			throw new IngestionTimeoutError([...this.pending], timeoutMs);
		}

		for (const contentId of this.pending) {
			this.failed.push({name: this.names.get(contentId) ?? contentId, contentId, stage: 'ingestion', reason: `still ${this.lastState.get(contentId) ?? 'pending'} after ${formatSeconds(timeoutMs)}`});
		}

		this.pending.clear();
		return this.complete();
	}

	round(round: number): void {
		const {files, timeoutMs} = this.options;
		this.options.emit({
			type: 'ingestion-round',
			round,
			finished: files.length - this.pending.size - this.failed.length,
			failed: this.failed.length,
			total: files.length,
			pending: [...this.pending],
			elapsedMs: Math.round(this.elapsed()),
			timeoutMs,
		});
	}

	complete(): FileFailure[] {
		const {files} = this.options;
		this.options.emit({type: 'ingestion-complete', total: files.length, finished: files.length - this.failed.length, failed: this.failed.length, elapsedMs: Math.round(this.elapsed())});
		return this.failed;
	}
}

/**
 * Waits until every file is ingested. Without keep-going the first FAILED… state or the deadline
 * throws; with it, failed and timed-out files are returned and the rest goes on.
 */
export async function waitForIngestion(options: IngestionWait): Promise<FileFailure[]> {
	const {files, signal, emit, timeoutMs} = options;
	const tally = new IngestionTally(options);
	// Between rounds: 250 ms, 500 ms, then every poll interval.
	const waits = pollWaits(options.pollIntervalMs, ingestionSteps);
	emit({type: 'ingestion-started', total: files.length, timeoutMs});
	const firstWait = Math.min((options.firstRoundAt ?? 0) - performance.now(), timeoutMs);
	if (firstWait > 0) {
		await sleep(firstWait, undefined, {signal});
	}

	for (let round = 1; tally.pending.size > 0; round++) {
		const deadline = until(signal, timeoutMs - tally.elapsed());
		const stopRound = new AbortController();
		const roundSignal = AbortSignal.any([deadline.signal, stopRound.signal]);
		try {
			await eachLimit([...tally.pending], options.parallelism, async contentId => tally.check(contentId, roundSignal));
		} catch (error) {
			stopRound.abort();
			if (deadline.expired()) {
				return tally.timedOut();
			}

			throw error;
		}

		tally.round(round);
		if (tally.pending.size === 0) {
			break;
		}

		const remaining = timeoutMs - tally.elapsed();
		if (remaining <= 0) {
			return tally.timedOut();
		}

		await sleep(Math.min(waits.next(), remaining), undefined, {signal});
	}

	return tally.complete();
}
