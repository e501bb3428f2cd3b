/** serve's status in words: the status line, plain and NDJSON, and the next step a rejected key needs. */
import type {WaitingSummary} from '../../receiver/store/backend.js';
import type {HealthState} from '../../receiver/ops/health.js';

/** What to do when the platform rejects the key. */
export const keyRejectedNext = 'set a valid key with `platform-tui keys set` (or PLATFORM_API_KEY), or rotate it with `platform-tui keys rotate`';

/** The next step of a degraded status, when there is one to take. */
export function healthNext(state: HealthState): string | undefined {
	return state.status === 'degraded' && state.dependencies.platform.code === 'key-rejected' ? keyRejectedNext : undefined;
}

/** The status in one line: `ready`, `degraded since 12:00:01: …`, `draining`; the next step after `; next:` unless `withNext` is false. */
export function healthText(state: HealthState, clock: (iso: string) => string, withNext = true): string {
	if (state.status !== 'degraded') {
		return state.status;
	}

	const step = withNext ? healthNext(state) : undefined;
	const next = step ? `; next: ${step}` : '';
	return `degraded since ${clock(state.since)}: ${state.reasons.join('; ')}${next}`;
}

/** The NDJSON record of a status change. */
export function healthRecord(state: HealthState): {type: 'status'} & Record<string, unknown> {
	return {
		type: 'status',
		at: state.since,
		status: state.status,
		since: state.since,
		reasons: state.reasons,
		dependencies: state.dependencies,
		...(state.dependencies.platform.code === 'key-rejected' ? {next: keyRejectedNext} : {}),
	};
}

/** The waiting events in words: `3 events waiting, next attempt at 12:00:05`, or `no event waiting`. */
export function waitingText(summary: WaitingSummary, clock: (iso: string) => string): string {
	if (summary.count === 0) {
		return 'no event waiting';
	}

	const next = summary.nextAttemptAt === undefined ? '' : `, next attempt at ${clock(summary.nextAttemptAt)}`;
	return `${summary.count} ${summary.count === 1 ? 'event' : 'events'} waiting${next}`;
}

/** The NDJSON record of a change in the waiting events. */
export function waitingRecord(summary: WaitingSummary): {type: 'waiting'} & Record<string, unknown> {
	return {type: 'waiting', at: new Date().toISOString(), count: summary.count, ...(summary.nextAttemptAt === undefined ? {} : {nextAttemptAt: summary.nextAttemptAt})};
}
