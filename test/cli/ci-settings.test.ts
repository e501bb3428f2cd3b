/**
 * CI's own settings reach the tests (test/setup.ts keeps them while it removes the developer's
 * PLATFORM_* variables): with PLATFORM_TUI_REQUIRE_SHELLS=1 or PLATFORM_TUI_REQUIRE_REDIS=1 set,
 * the tools they promise must be there, and these tests fail when one is missing. `.ci/run` sets
 * both and checks in the report that these tests ran rather than skipped.
 */
import {spawnSync} from 'node:child_process';
import {describe, expect, it} from 'vitest';
import {hasRedisServer, redisRequired} from '../support/redis.js';
import {shellsRequired} from '../support/shells.js';

const onPath = (program: string) => spawnSync(program, ['--version'], {stdio: 'ignore'}).status === 0;

describe('the settings CI runs the suite with', () => {
	it.runIf(process.env.PLATFORM_TUI_REQUIRE_SHELLS === '1')('PLATFORM_TUI_REQUIRE_SHELLS=1 reaches the tests: zsh, fish and bash are on PATH', () => {
		expect(shellsRequired).toBe(true);
		for (const shell of ['zsh', 'fish', 'bash']) {
			expect(onPath(shell), `${shell} on PATH`).toBe(true);
		}
	});

	it.runIf(process.env.PLATFORM_TUI_REQUIRE_REDIS === '1')('PLATFORM_TUI_REQUIRE_REDIS=1 reaches the tests: redis-server is on PATH', () => {
		expect(redisRequired).toBe(true);
		expect(hasRedisServer || process.env.PLATFORM_TUI_TEST_REDIS_URL !== undefined).toBe(true);
	});
});
