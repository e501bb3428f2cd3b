import {mkdtempSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';

// Every test file gets its own config store, and the developer's own PLATFORM_* variables never
// leak into a test. The test settings of the suites themselves (PLATFORM_TUI_TEST_*, and
// PLATFORM_TUI_REQUIRE_REDIS that CI sets) stay.
for (const name of Object.keys(process.env)) {
	if (name.startsWith('PLATFORM_') && !name.startsWith('PLATFORM_TUI_TEST_') && name !== 'PLATFORM_TUI_REQUIRE_REDIS') {
		Reflect.deleteProperty(process.env, name);
	}
}

// Ink renders only the final frame when it sees CI (it reads the variable when it loads); screen
// tests need every frame. Child CLI processes get CI from test/support/cli.ts explicitly.
delete process.env.CI;

process.env.PLATFORM_TUI_CONFIG_DIR = mkdtempSync(join(tmpdir(), 'platform-tui-test-'));
process.env.PLATFORM_TUI_DATA_DIR = mkdtempSync(join(tmpdir(), 'platform-tui-data-'));
