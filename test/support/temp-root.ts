/**
 * Vitest global setup: the run's temporary folders go in one folder of their own (TMPDIR for the
 * workers and every program they start; each test file makes and removes its own folder inside,
 * test/setup.ts), so a run leaves nothing in the system temp dir, and a folder left behind is
 * found: teardown lists what is left and fails the run, then removes the folder.
 * PLATFORM_TUI_TEST_KEEP_TEMP=1 keeps it for a look after a failure.
 */
import {chmodSync, mkdtempSync, readdirSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';

/** What programs the tests start keep there for themselves (not a test's folder). */
const toolCaches = /^(tsx-\d+|node-compile-cache|v8-compile-cache(-\d+)?|jiti)$/;

export default function setup(): () => void {
	const previous = process.env.TMPDIR;
	const folder = mkdtempSync(path.join(tmpdir(), 'pt-'));
	// Like /tmp: every user may make folders in it (tests run the CLI without root's rights).
	chmodSync(folder, 0o1777);
	process.env.TMPDIR = folder;
	// Each test file makes its own folder in it (test/setup.ts).
	process.env.PLATFORM_TUI_TEST_TEMP_ROOT = folder;
	return () => {
		delete process.env.PLATFORM_TUI_TEST_TEMP_ROOT;
		if (previous === undefined) {
			delete process.env.TMPDIR;
		} else {
			process.env.TMPDIR = previous;
		}

		// A test file's own folder (test/setup.ts: `f` and six characters) outlives it only when all
		// its tests were skipped (no afterAll then): removed here with the rest.
		const left = readdirSync(folder).filter(entry => !toolCaches.test(entry) && !/^f\w{6}$/.test(entry));
		let removal = '';
		if (process.env.PLATFORM_TUI_TEST_KEEP_TEMP !== '1') {
			try {
				rmSync(folder, {recursive: true, force: true});
			} catch (error) {
				// A file system a failed test left mounted, say: named, not a stack trace.
				removal = `; it could not be removed (${error instanceof Error ? error.message : String(error)})`;
			}
		}

		if (left.length > 0 || removal !== '') {
			throw new Error(`The tests left ${left.length} entries in the temp dir (${folder}): ${left.slice(0, 20).join(', ')}${removal}`);
		}
	};
}
