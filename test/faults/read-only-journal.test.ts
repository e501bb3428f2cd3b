import {spawn} from 'node:child_process';
import {chmodSync, chownSync, mkdtempSync, readdirSync, rmSync, statSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {openJournal} from '../../source/receiver/journal/index.js';
import {newEvent, tempDataDir} from '../journal/helpers.js';
import {childEnv, cliPath, collectOutput, type CliResult} from '../support/cli.js';

/** Root writes anywhere, so as root the CLI runs as nobody instead. */
const unprivileged = 65_534;
const asRoot = process.getuid?.() === 0;

/** Sets the mode of a folder and everything in it: folders `dirs`, files `files`. */
function chmodTree(folder: string, dirs: number, files: number): void {
	chmodSync(folder, dirs);
	for (const entry of readdirSync(folder)) {
		const target = path.join(folder, entry);
		if (statSync(target).isDirectory()) {
			chmodTree(target, dirs, files);
		} else {
			chmodSync(target, files);
		}
	}
}

async function runAsReader(args: string[]): Promise<CliResult> {
	const home = mkdtempSync(path.join(tmpdir(), 'platform-tui-reader-'));
	if (asRoot) {
		chownSync(home, unprivileged, unprivileged);
	}

	const child = spawn(process.execPath, [cliPath, ...args], {
		env: childEnv({HOME: home, PLATFORM_TUI_CONFIG_DIR: path.join(home, 'config'), PLATFORM_BASE_URL: 'http://127.0.0.1:9', PLATFORM_API_KEY: 'sk_test_readonly_0000', PLATFORM_APP_ID: 'app_1'}),
		stdio: ['ignore', 'pipe', 'pipe'],
		...(asRoot ? {uid: unprivileged, gid: unprivileged} : {}),
	});
	const output = collectOutput(child);
	const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
	try {
		const code = await new Promise<number | null>((resolve, reject) => {
			child.on('error', reject);
			child.on('close', resolve);
		});
		return {code, signal: child.signalCode, stdout: output.stdout(), stderr: output.stderr()};
	} finally {
		clearTimeout(timer);
		rmSync(home, {recursive: true, force: true});
	}
}

describe(`events on a journal this user may not write (built CLI${asRoot ? ', run as nobody since the tests run as root' : ''})`, () => {
	let directory: string;
	let folder: string;
	const ids: string[] = [];

	beforeAll(async () => {
		directory = tempDataDir();
		folder = path.join(directory, 'journal');
		const journal = await openJournal({directory, flushBeforeAck: false});
		for (let index = 0; index < 5; index++) {
			const event = newEvent({receivedAt: new Date(Date.now() - ((5 - index) * 1000)).toISOString()});
			ids.push(event.id);
			await journal.accept(event);
		}

		await journal.close();
		// Readable by everyone, writable by no one (chmod -R a-w, after opening the temp folder for others to enter).
		chmodSync(directory, 0o555);
		chmodTree(folder, 0o555, 0o444);
	});

	afterAll(() => {
		chmodSync(directory, 0o755);
		chmodTree(folder, 0o755, 0o644);
		rmSync(directory, {recursive: true, force: true});
	});

	it('events list and events show read it', async () => {
		const listed = await runAsReader(['events', 'list', '--json', '--data-dir', directory]);
		expect(listed.signal).toBeNull();
		expect(listed.code, listed.stderr).toBe(0);
		const rows = listed.stdout.trim().split('\n').map(line => JSON.parse(line) as {id: string});
		expect(rows.map(row => row.id)).toEqual([...ids].reverse());

		const shown = await runAsReader(['events', 'show', ids[0] ?? '', '--json', '--data-dir', directory]);
		expect(shown.code, shown.stderr).toBe(0);
		expect(JSON.parse(shown.stdout)).toMatchObject({id: ids[0], status: 'received'});
	});

	it('events replay and events recover refuse it with one sentence naming the folder', async () => {
		for (const args of [['events', 'replay', ids[0] ?? ''], ['events', 'recover']]) {
			const refused = await runAsReader([...args, '--data-dir', directory]);
			expect(refused.signal).toBeNull();
			expect(refused.code).toBe(1);
			expect(refused.stderr).toContain(`The event journal in ${folder} cannot be written by this user`);
			expect(refused.stderr.trim().split('\n')).toHaveLength(1);
		}
	});
});
