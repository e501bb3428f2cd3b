import {spawnSync} from 'node:child_process';
import {existsSync, openSync, rmSync, truncateSync, writeSync, closeSync, statSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {JournalError, openJournal} from '../../source/receiver/journal/index.js';
import {newEvent, tempDataDir} from '../journal/helpers.js';
import {childEnv, cliPath} from '../support/cli.js';

/** A journal of a few hundred events, closed; returns its data directory and data file. */
async function journalWithEvents(): Promise<{directory: string; file: string}> {
	const directory = tempDataDir();
	const journal = await openJournal({directory, flushBeforeAck: false});
	await Promise.all(Array.from({length: 300}, async () => journal.accept(newEvent({status: 'ignored', body: 'x'.repeat(300)}))));
	await journal.close();
	return {directory, file: path.join(directory, 'journal', 'data.mdb')};
}

const damages: Record<string, (file: string) => void> = {
	'truncated to half': file => {
		truncateSync(file, Math.floor(statSync(file).size / 2 / 4096) * 4096);
	},
	'meta pages zeroed': file => {
		const fd = openSync(file, 'r+');
		writeSync(fd, Buffer.alloc(8192), 0, 8192, 0);
		closeSync(fd);
	},
	'truncated to 0 bytes': file => {
		truncateSync(file, 0);
	},
	'deleted': file => {
		rmSync(file);
	},
};

describe('a damaged journal is refused, never opened', () => {
	for (const [name, damage] of Object.entries(damages)) {
		it(`${name}: serve and events refuse it with one message naming the file; no signal, no empty journal`, async () => {
			const {directory, file} = await journalWithEvents();
			damage(file);
			for (const mode of ['serve', 'read'] as const) {
				const refused = await openJournal({directory, mode}).catch((error: unknown) => error);
				expect(refused).toBeInstanceOf(JournalError);
				expect(refused).toMatchObject({code: 'journal-damaged', data: {file}});
			}

			expect(existsSync(cliPath)).toBe(true);
			const listed = spawnSync(process.execPath, [cliPath, 'events', 'list', '--data-dir', directory], {env: childEnv(), encoding: 'utf8', timeout: 60_000});
			expect(listed.signal).toBeNull();
			expect(listed.status).toBe(1);
			expect(listed.stderr).toContain(`The event journal file ${file} is damaged`);
			expect(listed.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
		});
	}
});
