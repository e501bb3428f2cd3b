/**
 * Shorter timers for the project's own test suite, so its tests of the built CLI do not wait for
 * the product's real lock, stall-check and retry times. Set by the suite (test/support/cli.ts
 * documents it) with PLATFORM_TUI_TEST_TIMERS=1 and NODE_ENV=test; refused anywhere else, so a
 * real run can never pick it up by accident. Not a user setting: it is in no user doc.
 */
export type TestTimers = {
	/** BullMQ's lock on a running job (the product's default is 15 s). */
	lockDurationMs: number;
	/** How often BullMQ looks for jobs whose lock ran out (default 10 s). */
	stalledIntervalMs: number;
	/** Base of the platform client's retry backoff (default 0.5 s). */
	retryBaseMs: number;
};

/** The test values: short, yet long enough that a live replica on a loaded machine keeps its locks. */
const testValues: TestTimers = {lockDurationMs: 4000, stalledIntervalMs: 1000, retryBaseMs: 10};

export const testTimersVariable = 'PLATFORM_TUI_TEST_TIMERS';

/** The test timers when the suite set them, undefined otherwise; throws when set outside a test run. */
export function testTimers(env: NodeJS.ProcessEnv = process.env): TestTimers | undefined {
	const value = env[testTimersVariable];
	if (value === undefined || value === '') {
		return undefined;
	}

	if (env.NODE_ENV !== 'test' || value !== '1') {
		throw new Error(`${testTimersVariable} is a setting of platform-tui's own test suite and is refused outside it; unset ${testTimersVariable}.`);
	}

	return testValues;
}

/**
 * A platform client's retry base from the environment a run is given: the suite's shorter one
 * when its test timers are set (throws when they are set outside a test run), else nothing, and
 * the client keeps its own default. The dependency factory and the clients made outside it
 * (init's check, --local) pass it in; the platform client reads no setting itself.
 */
export function clientRetryBase(env: NodeJS.ProcessEnv = process.env): {retryBaseMs?: number} {
	const timers = testTimers(env);
	return timers === undefined ? {} : {retryBaseMs: timers.retryBaseMs};
}
