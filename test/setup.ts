import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll} from 'vitest';

/**
 * The settings of the suite itself, which reach the tests: PLATFORM_TUI_TEST_* (test servers and
 * timers) and the two CI sets so a missing tool fails rather than skips (test/cli/ci-settings.test.ts
 * proves they arrive).
 */
const suiteSettings = new Set(['PLATFORM_TUI_REQUIRE_REDIS', 'PLATFORM_TUI_REQUIRE_SHELLS']);

// Every test file gets its own config store, and the developer's own PLATFORM_* variables never
// leak into a test.
for (const name of Object.keys(process.env)) {
	if (name.startsWith('PLATFORM_') && !name.startsWith('PLATFORM_TUI_TEST_') && !suiteSettings.has(name)) {
		Reflect.deleteProperty(process.env, name);
	}
}

// Ink renders only the final frame when it sees CI (it reads the variable when it loads); screen
// tests need every frame. Child CLI processes get CI from test/support/cli.ts explicitly.
delete process.env.CI;

// Every temporary folder of a test file (its own and those of the programs it starts, which
// inherit TMPDIR) goes in one folder of the file's, removed once the file is done: a file that
// forgets one, or a child killed before its cleanup, leaves nothing behind. Vitest runs no
// afterAll in a file whose tests all skip: the run's teardown (test/support/temp-root.ts) removes
// those folders, and fails the run on anything else left. Both names are short: a journal
// in a temp folder listens on a Unix socket below it, and socket paths are limited to 107 bytes.
const fileTemp = mkdtempSync(`${process.env.PLATFORM_TUI_TEST_TEMP_ROOT ?? tmpdir()}/f`);
process.env.TMPDIR = fileTemp;

process.env.PLATFORM_TUI_CONFIG_DIR = mkdtempSync(join(fileTemp, 'platform-tui-test-'));
process.env.PLATFORM_TUI_DATA_DIR = mkdtempSync(join(fileTemp, 'platform-tui-data-'));

afterAll(() => {
	// A folder that cannot go (a file system a failed test left mounted) is left for the run's
	// teardown to name; the file's own failure says why.
	try {
		rmSync(fileTemp, {recursive: true, force: true, maxRetries: 5});
	} catch (error) {
		console.error(`Could not remove this test file's temp folder ${fileTemp}: ${error instanceof Error ? error.message : String(error)}`);
	}
});
