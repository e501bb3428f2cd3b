/**
 * One processing attempt of a stored event, the same for every backend that runs its own jobs:
 * the handler's throw becomes a failed result, and the attempt ends with the same record fields.
 */
import {errorMessage} from '../../format/value.js';
import {StoreCannotRecordError, type JobHandle, type JobHandler, type JobResult, type StoredEvent} from '../store/backend.js';

/** The fields that end an attempt's record. */
export type AttemptEnd = Pick<StoredEvent, 'finishedAt' | 'updatedAt' | 'durationMs' | 'error'> & {status: JobResult['status']};

/**
 * Runs `handler` on `job`, timed; a throw is a failed result with its message, except a store that
 * cannot record (`StoreCannotRecordError`), which pauses the attempt: rethrown, nothing ends.
 */
export async function runAttempt(handler: JobHandler, job: JobHandle): Promise<{result: JobResult; end: AttemptEnd}> {
	const started = performance.now();
	let result: JobResult;
	try {
		result = await handler(job);
	} catch (error) {
		if (error instanceof StoreCannotRecordError) {
			throw error;
		}

		result = {status: 'failed', error: errorMessage(error)};
	}

	const finishedAt = new Date().toISOString();
	// A waiting event is not finished: it keeps no finishedAt until an attempt ends it.
	const end: AttemptEnd = {status: result.status, ...(result.status === 'waiting' ? {} : {finishedAt}), updatedAt: finishedAt, durationMs: Math.round(performance.now() - started)};
	if (result.error !== undefined) {
		end.error = result.error;
	}

	return {result, end};
}

/** Writes the end of an attempt over `record`: an earlier attempt's error goes when this one had none. */
export function endAttempt<T extends Pick<StoredEvent, 'status' | 'finishedAt' | 'updatedAt' | 'durationMs' | 'error'>>(record: T, end: AttemptEnd): T {
	delete record.error;
	delete record.finishedAt;
	return Object.assign(record, end);
}
