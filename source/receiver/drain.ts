/**
 * What the backends' `stop` shares: the grace cut-off jobs get, and a wait with a bound (which the
 * receiver's server and the Redis connections also close with).
 */

/**
 * After the drain deadline, how long cut-off jobs get for their failure path: each makes a few
 * bounded calls (its logs, the apology; 10 s each at most).
 */
export const defaultAbortGraceMs = 31_000;

/** Whether `promise` settles (resolves or rejects) within `ms`. */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
	let timer: NodeJS.Timeout | undefined;
	const deadline = new Promise<false>(resolve => {
		timer = setTimeout(resolve, ms, false);
	});
	try {
		return await Promise.race([promise.then(() => true, () => true), deadline]);
	} finally {
		clearTimeout(timer);
	}
}
