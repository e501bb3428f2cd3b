/** The built CLI honours the test-only timers in a test run and refuses them anywhere else. */
import {mkdtempSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {runCli} from '../support/cli.js';

/** `keys rotate` against a port nothing listens on: every attempt is refused, then retried. */
async function rotateUnreachable(env: Record<string, string | undefined>, flags: string[] = []) {
	const settings = {PLATFORM_TUI_CONFIG_DIR: mkdtempSync(path.join(tmpdir(), 'platform-tui-timers-')), PLATFORM_API_KEY: 'sk_test_timers_0000', PLATFORM_USER_ID: 'user', PLATFORM_COMPANY_ID: 'company', PLATFORM_ASSISTANT_ID: 'assistant'};
	return runCli(['keys', 'rotate', '--yes', '--base-url', 'http://127.0.0.1:9', '--app-id', 'app', ...flags], {env: {...settings, ...env}});
}

describe('PLATFORM_TUI_TEST_TIMERS in the built CLI', () => {
	it('is refused without NODE_ENV=test: one sentence naming it, exit 1, nothing called', async () => {
		const result = await rotateUnreachable({NODE_ENV: undefined});
		expect(result.code).toBe(1);
		expect(result.stderr).toContain('Error: PLATFORM_TUI_TEST_TIMERS is a setting of platform-tui\'s own test suite and is refused outside it; unset PLATFORM_TUI_TEST_TIMERS.');
		expect(result.stderr).not.toContain('could not reach');
	});

	it('with NODE_ENV=test the client retries from a 10 ms base, not 0.5 s (the waits --debug plans)', async () => {
		const result = await rotateUnreachable({}, ['--debug']);
		expect(result.code).toBe(1);
		expect(result.stderr).toContain('Key rotation failed: could not reach http://127.0.0.1:9 (ECONNREFUSED). The key …0000 is unchanged.');
		const planned = [...result.stderr.matchAll(/retry in (\d+) ms/g)].map(match => Number(match[1]));
		// Three retries (the default), each within 10 ms × 2ⁿ (jittered down, never up).
		expect(planned).toHaveLength(3);
		for (const [index, ms] of planned.entries()) {
			expect(ms).toBeLessThanOrEqual(10 * (2 ** index));
		}
	});
});
