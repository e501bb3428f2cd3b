import {setTimeout as sleep} from 'node:timers/promises';

export type WaitOptions = {
	/** Give up after this long (default 5000 ms). */
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
 * Polls `predicate` until it returns a truthy value and resolves with that value; fails after
 * `timeoutMs` with the last value seen. Bounded in time; the interval is no timing assertion.
 */
export async function waitFor<T>(predicate: () => T | Promise<T>, options: WaitOptions = {}): Promise<NonNullable<T>> {
	const timeoutMs = options.timeoutMs ?? 5000;
	const intervalMs = options.intervalMs ?? 10;
	const deadline = Date.now() + timeoutMs;
	let last: T | undefined;
	for (;;) {
		last = await predicate();
		if (last) {
			return last;
		}

		if (Date.now() > deadline) {
			throw new Error(`Timed out after ${timeoutMs} ms waiting for ${options.what ?? 'a condition'}; last value: ${describe(last)}`);
		}

		await sleep(intervalMs);
	}
}
