import {describe, expect, it} from 'vitest';
import {clientRetryBase, testTimers} from '../../source/config/test-timers.js';
import {retryBaseFor} from '../../source/platform/client-options.js';

describe('the test-only timer setting', () => {
	it('is off when PLATFORM_TUI_TEST_TIMERS is not set (or empty), whatever NODE_ENV says', () => {
		expect(testTimers({})).toBeUndefined();
		expect(testTimers({NODE_ENV: 'test', PLATFORM_TUI_TEST_TIMERS: ''})).toBeUndefined();
	});

	it('gives short BullMQ lock, stall-check and retry times in a test run (NODE_ENV=test)', () => {
		const timers = testTimers({NODE_ENV: 'test', PLATFORM_TUI_TEST_TIMERS: '1'});
		expect(timers?.lockDurationMs).toBeLessThan(15_000);
		expect(timers?.stalledIntervalMs).toBeLessThan(10_000);
		expect(timers?.retryBaseMs).toBeLessThan(500);
		// BullMQ renews a lock every half lock: the stalled check must not outrun a live renewal.
		expect(timers?.stalledIntervalMs).toBeLessThan((timers?.lockDurationMs ?? 0) / 2);
	});

	it('is refused outside a test run, and any value but 1 is refused, naming the variable', () => {
		for (const env of [{PLATFORM_TUI_TEST_TIMERS: '1'}, {NODE_ENV: 'production', PLATFORM_TUI_TEST_TIMERS: '1'}, {NODE_ENV: 'test', PLATFORM_TUI_TEST_TIMERS: 'yes'}]) {
			expect(() => testTimers(env)).toThrow('PLATFORM_TUI_TEST_TIMERS is a setting of platform-tui\'s own test suite and is refused outside it; unset PLATFORM_TUI_TEST_TIMERS.');
		}
	});

	it('sets a platform client\'s retry base, from the environment the client is given: one rule, read when the client is made', () => {
		const client = {baseUrl: 'http://127.0.0.1:9', apiKey: 'sk_test', appId: 'app'};
		const suite = {NODE_ENV: 'test', PLATFORM_TUI_TEST_TIMERS: '1'};
		expect(retryBaseFor({...client, ...clientRetryBase({})})).toBe(500);
		expect(retryBaseFor({...client, ...clientRetryBase(suite)})).toBe(testTimers(suite)?.retryBaseMs);
		// A base given outright wins over the suite's.
		expect(retryBaseFor({...client, ...clientRetryBase(suite), retryBaseMs: 7})).toBe(7);
		expect(() => retryBaseFor({...client, ...clientRetryBase({PLATFORM_TUI_TEST_TIMERS: '1'})})).toThrow('refused outside it');
	});

});
