/**
 * Time as the platform client, its pacer and the local platform read it: `now()` and an abortable
 * `sleep`. The real clocks wait on Node's timers; `ManualClock` only moves when told to, so a test
 * moves time forward instead of sleeping in real time.
 */
import {setMaxListeners} from 'node:events';

export type Clock = {
	/** Milliseconds: since the epoch (`systemClock`), or of a monotonic timer (`monotonicClock`). */
	now(): number;
	/**
	 * Resolves after `ms` of this clock's time, or at once when `signal` aborts (never rejects).
	 * `unref`: the wait does not keep the process running (a background poll's).
	 */
	sleep(ms: number, signal: AbortSignal, options?: SleepOptions): Promise<void>;
};

export type SleepOptions = {unref?: boolean};

/** The wakers of the waits on each signal, called by the signal's one 'abort' listener. */
const wakers = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `wake` when `signal` aborts; the returned function stops that. Every wait on one signal
 * shares one 'abort' listener: an upload's workers all wait on the run's signal (retry backoffs,
 * the pacer), and a listener each put more than Node's 10 on it (MaxListenersExceededWarning).
 */
export function whenAborted(signal: AbortSignal, wake: () => void): () => void {
	let waiting = wakers.get(signal);
	if (waiting === undefined) {
		const created = new Set<() => void>();
		waiting = created;
		wakers.set(signal, created);
		signal.addEventListener('abort', () => {
			wakers.delete(signal);
			for (const waker of created) {
				waker();
			}
		}, {once: true});
	}

	const own = waiting;
	own.add(wake);
	return () => {
		own.delete(wake);
	};
}

/** Resolves after `ms`, or at once when `signal` aborts (it never rejects). */
export async function abortableSleep(ms: number, signal: AbortSignal, options: SleepOptions = {}): Promise<void> {
	return new Promise(resolve => {
		if (signal.aborted) {
			resolve();
			return;
		}

		const timer = setTimeout(done, ms);
		if (options.unref) {
			timer.unref();
		}

		const forget = whenAborted(signal, done);
		function done(): void {
			clearTimeout(timer);
			forget();
			resolve();
		}
	});
}

/** Wall-clock time: timestamps and expiry (the local platform). */
export const systemClock: Clock = {
	now: () => Date.now(),
	sleep: abortableSleep,
};

/** Spans only (attempt timeouts, backoff, pacing): a monotonic timer that a wall-clock jump does not move. */
export const monotonicClock: Clock = {
	now: () => performance.now(),
	sleep: abortableSleep,
};

/** A signal no one aborts, for a sleep that has no caller's signal (any number of sleeps may wait on it). */
export const neverAborted: AbortSignal = new AbortController().signal;
setMaxListeners(0, neverAborted);

/**
 * Why a cleared timeout's sleep ends: one reason for all, since `abort()` without one builds a new
 * DOMException each time (3.5 % of serve's CPU on the answer path, where every call clears one).
 */
const clearedReason = new Error('timeout cleared');

/** A signal that `clock` aborts after `ms` with a `TimeoutError` (as `AbortSignal.timeout` does); `clear()` drops its timer. */
export function timeoutSignal(clock: Clock, ms: number): {signal: AbortSignal; clear: () => void} {
	const timeout = new AbortController();
	const cleared = new AbortController();
	void clock.sleep(ms, cleared.signal).then(() => {
		if (!cleared.signal.aborted) {
			timeout.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
		}
	});
	return {
		signal: timeout.signal,
		clear() {
			cleared.abort(clearedReason);
		},
	};
}

type Sleeper = {at: number; wake: () => void};

/** A clock that only moves when told to: `advance(ms)` wakes every sleep that falls due, in order. */
export class ManualClock implements Clock {
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

	/** Time until the earliest sleep falls due (0 when one is due now); undefined when nothing sleeps. */
	nextWakeMs(): number | undefined {
		if (this.sleepers.length === 0) {
			return undefined;
		}

		return Math.max(0, Math.min(...this.sleepers.map(sleeper => sleeper.at)) - this.current);
	}

	async sleep(ms: number, signal: AbortSignal): Promise<void> {
		return new Promise(resolve => {
			if (signal.aborted) {
				resolve();
				return;
			}

			let forget = (): void => undefined;
			const sleeper: Sleeper = {
				at: this.current + Math.max(0, ms),
				wake: () => {
					forget();
					this.sleepers = this.sleepers.filter(entry => entry !== sleeper);
					resolve();
				},
			};
			this.sleepers.push(sleeper);
			forget = whenAborted(signal, sleeper.wake);
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
