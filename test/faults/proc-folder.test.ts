/**
 * A folder to make under a file system that takes no new folder (a path under /proc refuses mkdir
 * with ENOENT though its parent exists). Node's recursive mkdir never returns there: it spins with
 * the event loop blocked, so not even SIGTERM ends the run. Every folder the program makes goes
 * through one function (private-files.ts), which throws the refusal at once; the run ends with its
 * one sentence. Linux only (/proc).
 */
import {existsSync} from 'node:fs';
import {spawnSync} from 'node:child_process';
import {describe, expect, it} from 'vitest';
import {childEnv, cliPath} from '../support/cli.js';

/** A name under /proc that is no process and no entry. */
const refused = `/proc/platform-tui-${process.pid}/data`;

describe.runIf(existsSync('/proc/self'))('a folder on a file system that takes no new folder', () => {
	it('config set under it ends with one sentence and exit 1', () => {
		// The time limit only bounds a run that would otherwise never end (and ignore SIGTERM); it is expected to end at once.
		const result = spawnSync(process.execPath, [cliPath, 'config', 'set', 'model', 'AZURE_GPT_4o_2024_1120'], {encoding: 'utf8', env: childEnv({PLATFORM_TUI_CONFIG_DIR: refused}), timeout: 60_000, killSignal: 'SIGKILL'});
		expect(result.signal).toBeNull();
		expect(result.status).toBe(1);
		expect(result.stderr.trim().split('\n')).toHaveLength(1);
		expect(result.stderr).toContain(refused);
		// The first folder that could not be made.
		expect(result.stderr).toContain(`mkdir '/proc/platform-tui-${process.pid}'`);
		expect(result.stderr).not.toMatch(/\n\s+at /);
	});
});
