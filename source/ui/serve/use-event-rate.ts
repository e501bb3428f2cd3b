/**
 * The serve screen's pulse: the requests the receiver answered (accepted, duplicate or rejected),
 * counted per second over the last minute, from the events the screen already receives.
 */
import {useEffect, useState} from 'react';
import {RateSampler} from '../../format/rate-samples.js';
import type {ReceiverEvent} from '../../receiver/events.js';
import type {ServeSource} from './source.js';

/** One bucket a second, a minute of them. */
export const rateBucketMs = 1000;
export const rateBuckets = 60;

/** Whether the event is a request answered (what the rate counts). */
export function isRequest(event: ReceiverEvent): boolean {
	return event.type === 'accepted' || event.type === 'duplicate' || event.type === 'rejected';
}

/**
 * Counts the source's requests at the clock's time; returns the counts per whole second up to
 * `at`, oldest first, since the screen opened.
 */
export function useEventRate(source: ServeSource, now: () => number): (at: number) => number[] {
	const [{sampler, since}] = useState(() => ({sampler: new RateSampler({bucketMs: rateBucketMs, size: rateBuckets, clock: now}), since: now()}));
	useEffect(() => source.on('event', event => {
		if (isRequest(event)) {
			sampler.record();
		}
	}), [source, sampler]);
	// The second under way is not whole yet: the line ends with the last whole one.
	return at => sampler.valuesAt(at - rateBucketMs, since);
}
