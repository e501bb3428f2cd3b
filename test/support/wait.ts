import {setTimeout as sleep} from 'node:timers/promises';

/**
 * How long any wait in the suite allows before it calls the wait a hang: far past what the
 * slowest step needs on a loaded 2-core machine. It only ends a hang; no test measures speed with it.
 */
export const hangLimitMs = 60_000;

export type WaitOptions = {
	/** Give up after this long (default: the hang limit). */
	timeoutMs?: number;
	/** Pause between checks (default 10 ms). */
	intervalMs?: number;
	/** Named in the timeout error. */
	what?: string;
};

function describe(value: unknown): string {
	try {
		return (JSON.stringify(value) as string | undefined ?? 'undefined').slice(0, 500);
	} catch {
		return String(value);
	}
}

/**
 * Polls `read` until its value is accepted and resolves with that value; fails after `timeoutMs`
 * naming `what` and the last value seen. A value is accepted when `until(value)` holds, or without
 * `until` when it is truthy. Bounded in time; the interval is no timing assertion.
 */
export async function waitFor<T>(read: () => T | Promise<T>, options: WaitOptions & {until: (value: T) => boolean}): Promise<T>;
export async function waitFor<T>(read: () => T | Promise<T>, options?: WaitOptions): Promise<NonNullable<T>>;
export async function waitFor<T>(read: () => T | Promise<T>, options: WaitOptions & {until?: (value: T) => boolean} = {}): Promise<T> {
	const timeoutMs = options.timeoutMs ?? hangLimitMs;
	const intervalMs = options.intervalMs ?? 10;
	const accepted = options.until ?? (value => Boolean(value));
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const last = await read();
		if (accepted(last)) {
			return last;
		}

		if (Date.now() > deadline) {
			throw new Error(`Timed out after ${timeoutMs} ms waiting for ${options.what ?? 'a condition'}; last value: ${describe(last)}`);
		}

		await sleep(intervalMs);
	}
}
