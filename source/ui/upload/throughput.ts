/**
 * The upload's throughput (pure): the bytes sent, counted per second as they are reported, for
 * the sparkline under the totals while the transfer runs.
 */
import {formatRate} from '../../format/bytes.js';
import {addSample, emptySamples, sampleValues} from '../../format/rate-samples.js';
import {rateLine} from '../rate-line.js';
import type {UploadViewState} from './view-state.js';

/** One bucket a second, a minute of them. */
export const throughputBucketMs = 1000;
export const throughputBuckets = 60;

/** `bytes` more sent at `now`: the total and the second's count. */
export function addSent(state: UploadViewState, bytes: number, now: number): UploadViewState {
	const samples = state.throughput ?? emptySamples(throughputBucketMs, throughputBuckets);
	return {...state, sentBytes: state.sentBytes + bytes, throughput: addSample(samples, now, bytes)};
}

/** Whether the transfer runs (the line shows then). */
export function transferring(state: UploadViewState): boolean {
	return state.uploadStartedAt !== undefined && state.uploadEndedAt === undefined && !state.done;
}

/** Bytes per whole second since the transfer started, up to `now`, oldest first. */
export function throughputValues(state: UploadViewState, now: number): number[] {
	return state.throughput === undefined ? [] : sampleValues(state.throughput, now - throughputBucketMs, state.uploadStartedAt);
}

/** `throughput ▁▃▅█▇ 2.0 MiB/s (peak 3.0 MiB/s)`, or the figures alone without pictures, in `width` columns. */
export function throughputLine(state: UploadViewState, now: number, width: number, pictures: boolean): string {
	return rateLine({label: 'throughput', values: throughputValues(state, now), unit: formatRate, width, pictures});
}
