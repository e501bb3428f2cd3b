/**
 * What a replica's BullMQ worker runs for each job: the handler, its steps written into the job's
 * progress as they happen (so the replica that takes over a job after its owner died resumes from
 * the last step), and the job ended: finished in one script of our own (finished.ts), delayed
 * until its next attempt, or failed.
 */
import {DelayedError, type Job, UnrecoverableError} from 'bullmq';
import type {JobHandler, JobResult, NewEvent, StepRecord} from '../store/backend.js';
import type {FinishJob} from './finished.js';
import {progressOf, toStoredEvent} from './mapping.js';
import type {SaveSteps} from './progress.js';

/** What the processor needs of the worker's options. */
export type ProcessorOptions = {
	handler: JobHandler;
	onError?: (error: Error) => void;
};

/** What a replica's worker keeps while it runs, shared by its processor, its listeners and its stop. */
export type WorkerState = {
	/** Jobs running here (the processor's and the failure paths' below). */
	active: number;
	saveSteps: SaveSteps;
	finish: FinishJob;
	/** Errors our processor ended a job with: their failure path already ran. */
	handled: WeakSet<Error>;
	/** Failure paths running for jobs BullMQ failed without the processor (stalled too often). */
	cleanups: Set<Promise<unknown>>;
	/**
	 * Jobs this replica let go while BullMQ still tracked them: finished here (finished.ts), or lost
	 * by Redis while they ran. BullMQ's complaints about them (no key, no lock) are expected for a while.
	 */
	letGo: Set<string>;
};

/**
 * A job's steps: `save` writes them into its progress; `record.lost` once Redis is found to have
 * lost the job; `record.saved`: how many of the steps Redis has; `unsaved` the progress still to
 * write (undefined when Redis has every step).
 */
function jobSteps(state: WorkerState, job: Job<NewEvent>, list: StepRecord[]) {
	const record = {lost: false, saved: list.length};
	const save = async () => {
		if (record.lost || record.saved === list.length) {
			return;
		}

		const count = list.length;
		if (await state.saveSteps(job, list)) {
			record.saved = count;
		} else {
			// Redis lost the job (FLUSHALL, a restart without persistence). This replica holds
			// everything the answer needs: it goes on from its copy rather than apologising
			// for an answer it can still give; nothing of it can be stored any more.
			record.lost = true;
			state.letGo.add(job.id ?? '');
		}
	};

	const unsaved = () => (record.saved === list.length ? undefined : progressOf(list));
	return {list, record, save, unsaved};
}

/** BullMQ's complaints about job `id` (no key, no lock) are expected for the next minute. */
function letGoForAMinute(state: WorkerState, id: string): void {
	state.letGo.add(id);
	setTimeout(() => state.letGo.delete(id), 60_000).unref();
}

/** What a job ends with: the handler's result, or the status of an event recorded only. */
type Outcome = JobResult | {status: 'logged' | 'ignored'};

/**
 * Ends a job the handler finished: the outcome and the steps not written yet stored with the move
 * to completed in one script (finished.ts). BullMQ is then told the job was moved by hand (its
 * `DelayedError`, as after a move to delayed): it does nothing more with it but fetch the next.
 */
async function finishHere(state: WorkerState, options: ProcessorOptions, job: Job<NewEvent>, token: string | undefined, result: Outcome, steps: ReturnType<typeof jobSteps>): Promise<Outcome> {
	if (token === undefined) {
		// Not run by BullMQ's worker loop (no lock token): BullMQ's own completion.
		await steps.save();
		return result;
	}

	const id = job.id ?? '';
	if (!steps.record.lost) {
		letGoForAMinute(state, id);
		let finished: boolean;
		try {
			finished = await state.finish(job, token, result, steps.unsaved());
		} catch {
			// Redis did not answer: BullMQ's own completion, which waits for the connection to come
			// back (a script run whose reply was lost leaves it no lock: its complaint is expected).
			await steps.save();
			return result;
		}

		if (!finished) {
			// Another replica took the job over (its lock ran out here): that one ends it, from the steps
			// stored. As BullMQ's own completion says it.
			options.onError?.(new Error(`Missing lock for job ${id}. moveToFinished`));
		}
	}

	throw new DelayedError();
}

/** Runs the handler on a job: its steps saved as they happen, a waiting event delayed, a failure ended unrecoverable. */
export function jobProcessor(options: ProcessorOptions, state: WorkerState) {
	return async (job: Job<NewEvent>, token?: string, signal?: AbortSignal): Promise<Outcome> => {
		if (job.data.status !== 'received') {
			// Recorded only: completing it at once keeps it listed (and its id held) like the others.
			return finishHere(state, options, job, token, {status: job.data.status}, jobSteps(state, job, []));
		}

		const event = toStoredEvent(job, 'active');
		const steps = jobSteps(state, job, [...event.steps]);
		const {record, save, list} = steps;
		state.active++;
		try {
			const result = await options.handler({
				event,
				signal: signal ?? new AbortController().signal,
				async recordStep(step, recordOptions) {
					list.push(step);
					// A step a resume can do again waits for the next one: both in one write.
					if (!recordOptions?.later) {
						await save();
					}
				},
				storeLost: () => record.lost,
			});
			if (result.status === 'waiting' && !record.lost) {
				// A transient failure: the job goes to BullMQ's delayed set until its next attempt (any
				// replica takes it then), its steps, the schedule among them, kept in its progress.
				await save();
				const atMs = Date.parse(result.nextAttemptAt);
				await job.moveToDelayed(Number.isNaN(atMs) ? Date.now() : atMs, token);
				throw new DelayedError();
			}

			if (result.status === 'failed') {
				// Ends the job failed with the reason; never retried by BullMQ (the failure path ran).
				await save();
				const error = new UnrecoverableError(result.error ?? 'failed');
				state.handled.add(error);
				throw error;
			}

			// A step kept for a next one that never came is stored with the outcome.
			return await finishHere(state, options, job, token, result, steps);
		} finally {
			state.active--;
			if (record.lost) {
				letGoForAMinute(state, job.id ?? '');
			}
		}
	};
}
