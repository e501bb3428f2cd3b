import {abortableSleep} from './timers.js';

/**
 * The local platform's time: timestamps, key expiry, ingestion steps and the assistant's pauses
 * all read it, so a test can move time forward instead of sleeping in real time.
 */
export type PlatformClock = {
	/** Milliseconds since the epoch. */
	now(): number;
	/** Resolves after `ms` of this clock's time, or at once when `signal` aborts (never rejects). */
	sleep(ms: number, signal: AbortSignal): Promise<void>;
};

export const systemClock: PlatformClock = {
	now: () => Date.now(),
	sleep: abortableSleep,
};

/** The clock's time as an ISO 8601 timestamp. */
export function isoNow(clock: PlatformClock): string {
	return new Date(clock.now()).toISOString();
}

type Sleeper = {at: number; wake: () => void};

/** A clock that only moves when told to: `advance(ms)` wakes every sleep that falls due, in order. */
export class ManualClock implements PlatformClock {
	private current: number;
	private sleepers: Sleeper[] = [];

	constructor(start = Date.now()) {
		this.current = start;
	}

	now(): number {
		return this.current;
	}

	/** Sleeps waiting for this clock right now. */
	get pendingSleeps(): number {
		return this.sleepers.length;
	}

	sleep(ms: number, signal: AbortSignal): Promise<void> {
		return new Promise(resolve => {
			if (signal.aborted) {
				resolve();
				return;
			}

			const sleeper: Sleeper = {
				at: this.current + Math.max(0, ms),
				wake: () => {
					signal.removeEventListener('abort', sleeper.wake);
					this.sleepers = this.sleepers.filter(entry => entry !== sleeper);
					resolve();
				},
			};
			this.sleepers.push(sleeper);
			signal.addEventListener('abort', sleeper.wake, {once: true});
		});
	}

	/** Moves time forward by `ms`, waking due sleeps earliest first (time stands at each one's due moment as it wakes). */
	advance(ms: number): void {
		const target = this.current + Math.max(0, ms);
		for (;;) {
			const due = this.sleepers
				.filter(sleeper => sleeper.at <= target)
				.sort((a, b) => a.at - b.at)[0];
			if (due === undefined) {
				break;
			}

			this.current = Math.max(this.current, due.at);
			due.wake();
		}

		this.current = target;
	}
}
