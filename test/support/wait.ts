import {setTimeout as sleep} from 'node:timers/promises';

export type WaitOptions = {
	/** Give up after this long (default 10 000 ms). */
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
	const timeoutMs = options.timeoutMs ?? 10_000;
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
