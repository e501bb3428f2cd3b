import {setTimeout as sleep} from 'node:timers/promises';

/** Polls until `check` returns a truthy value, or fails after `timeoutMs` (bounded; no timing assertion). */
export async function waitUntil<T>(check: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = 5000, intervalMs = 10): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value) {
			return value;
		}

		if (Date.now() > deadline) {
			throw new Error(`Timed out waiting for ${what}`);
		}

		await sleep(intervalMs);
	}
}

/** Every full key given must be absent from every text given. */
export function leakedKeys(texts: readonly string[], keys: readonly string[]): string[] {
	return keys.filter(key => texts.some(text => text.includes(key)));
}
