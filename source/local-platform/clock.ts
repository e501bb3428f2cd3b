import type {Clock} from '../platform/clock.js';

/**
 * The local platform's time: timestamps, key expiry, ingestion steps and the assistant's pauses
 * all read it, so a test can move time forward instead of sleeping in real time. The clocks are
 * the platform client's (source/platform/clock.ts): one `ManualClock` drives both in a test.
 */
export type PlatformClock = Clock;

export {ManualClock, systemClock} from '../platform/clock.js';

/** The clock's time as an ISO 8601 timestamp. */
export function isoNow(clock: PlatformClock): string {
	return new Date(clock.now()).toISOString();
}
