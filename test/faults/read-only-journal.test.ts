import {chmodSync, readdirSync, rmSync, statSync} from 'node:fs';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {openJournal} from '../../source/receiver/journal/index.js';
import {newEvent, tempDataDir} from '../receiver/journal/helpers.js';
import {runUnprivileged, unprivilegedHow} from '../support/unprivileged.js';

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

/** Settings `events replay` needs before it reaches the journal (the platform is never called). */
const settings = {PLATFORM_BASE_URL: 'http://127.0.0.1:9', PLATFORM_API_KEY: 'sk_test_readonly_0000', PLATFORM_APP_ID: 'app_1'};

describe(`events on a journal this user may not write (built CLI, ${unprivilegedHow})`, () => {
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
		const listed = await runUnprivileged(['events', 'list', '--json', '--data-dir', directory], settings);
		expect(listed.signal).toBeNull();
		expect(listed.code, listed.stderr).toBe(0);
		const rows = listed.stdout.trim().split('\n').map(line => JSON.parse(line) as {type: string; id: string}).filter(row => row.type === 'event');
		expect(rows.map(row => row.id)).toEqual([...ids].reverse());

		const shown = await runUnprivileged(['events', 'show', ids[0] ?? '', '--json', '--data-dir', directory], settings);
		expect(shown.code, shown.stderr).toBe(0);
		expect(JSON.parse(shown.stdout.split('\n')[0] ?? '')).toMatchObject({type: 'event', id: ids[0], status: 'received'});
	});

	it('events replay and events recover refuse it with one sentence naming the folder', async () => {
		for (const args of [['events', 'replay', ids[0] ?? ''], ['events', 'recover']]) {
			const refused = await runUnprivileged([...args, '--data-dir', directory], settings);
			expect(refused.signal).toBeNull();
			expect(refused.code).toBe(1);
			expect(refused.stderr).toContain(`The event journal in ${folder} cannot be written by this user`);
			expect(refused.stderr.trim().split('\n')).toHaveLength(1);
		}
	});
});
