/**
 * A journal on a file system mounted read-only (EROFS) is named as such, not as a journal "this
 * user" may not write (root may write any folder but still not a read-only mount). Needs root
 * (mount); skipped with one line otherwise.
 */
import {execFileSync, spawnSync} from 'node:child_process';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {describeError, joinText} from '../../source/cli/error-message.js';
import {openJournal} from '../../source/receiver/journal/index.js';
import {checkWritable} from '../../source/workflow/manifest.js';
import {newEvent} from '../receiver/journal/helpers.js';
import {childEnv, cliPath} from '../support/cli.js';
import {mountTmpfs, rootOnly} from '../support/root.js';

const runs = rootOnly('The read-only file system test');
const cleanups: Array<() => void> = [];

afterEach(() => {
	for (const cleanup of cleanups.splice(0).reverse()) {
		cleanup();
	}
});

const settings = {PLATFORM_BASE_URL: 'http://127.0.0.1:9', PLATFORM_API_KEY: 'sk_test_readonly_0000', PLATFORM_APP_ID: 'app_1', PLATFORM_ENDPOINT_SECRET: 'whsec_read_only'};

function cli(args: string[]) {
	return spawnSync(process.execPath, [cliPath, ...args], {encoding: 'utf8', env: childEnv(settings), timeout: 60_000});
}

describe.runIf(runs)('a journal on a read-only file system', () => {
	it('serve, events replay and events recover name the read-only file system; events list still reads it', async () => {
		const fs = mountTmpfs(4 * 1024 * 1024);
		cleanups.push(() => {
			fs.unmount();
		});
		const journal = await openJournal({directory: fs.directory, flushBeforeAck: false});
		const event = newEvent();
		await journal.accept(event);
		await journal.close();
		execFileSync('mount', ['-o', 'remount,ro', fs.directory]);

		for (const args of [['serve', '--port', '0'], ['events', 'replay', event.id], ['events', 'recover']]) {
			const run = cli([...args, '--data-dir', fs.directory]);
			expect(run.status, run.stdout).toBe(1);
			expect(run.stderr).toContain('is on a read-only file system');
			expect(run.stderr).not.toContain('by this user');
		}

		const listed = cli(['events', 'list', '--json', '--data-dir', fs.directory]);
		expect(listed.status, listed.stderr).toBe(0);
		expect(listed.stdout).toContain(event.id);
	});

	it('serve refuses a read-only data directory that holds no journal yet, naming it', () => {
		const fs = mountTmpfs(1024 * 1024);
		cleanups.push(() => {
			fs.unmount();
		});
		execFileSync('mount', ['-o', 'remount,ro', fs.directory]);
		const run = cli(['serve', '--port', '0', '--data-dir', fs.directory]);
		expect(run.status).toBe(1);
		expect(run.stderr).toContain('is on a read-only file system');
	});
});

describe.runIf(runs)('an upload\'s data directory on a read-only file system', () => {
	it('is named as read-only, not as a folder that "disappeared" (the recursive mkdir\'s ENOENT)', async () => {
		const fs = mountTmpfs(1024 * 1024);
		cleanups.push(() => {
			fs.unmount();
		});
		execFileSync('mount', ['-o', 'remount,ro', fs.directory]);
		for (const dataDir of [fs.directory, path.join(fs.directory, 'not-yet')]) {
			const error = await checkWritable(dataDir, path.join(dataDir, 'sync', '127.0.0.1_9-abc')).then(() => undefined, (caught: unknown) => caught);
			const text = joinText(describeError(error));
			expect(text).toContain(`The data directory ${dataDir} is not writable (read-only file system on ${fs.directory})`);
			expect(text).not.toContain('disappeared');
			expect(text).toContain('is on a read-only file system');
		}
	});
});
