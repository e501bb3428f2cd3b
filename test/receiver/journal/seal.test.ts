/**
 * The clean-stop seal (source/receiver/journal/recovery/seal.ts): a journal that `serve` closed cleanly
 * and that nothing changed since opens without the read-through in a child; any change to its
 * bytes, or a writer that never closed, brings the read-through back. Whether an open started the
 * child is seen by giving it no Node to start: `process.execPath` pointing nowhere makes the
 * read-through fail, and only an open that skips it succeeds.
 */
import {closeSync, existsSync, openSync, readdirSync, readSync, rmSync, statSync, utimesSync, writeFileSync, writeSync} from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {WriteHealth} from '../../../source/receiver/journal/open/health.js';
import {openJournal} from '../../../source/receiver/journal/index.js';
import {matchesSeal, sealFile} from '../../../source/receiver/journal/recovery/seal.js';
import {newEvent, tempDataDir} from './helpers.js';

const directories: string[] = [];

afterEach(() => {
	for (const directory of directories.splice(0)) {
		rmSync(directory, {recursive: true, force: true});
	}
});

/** A data directory whose journal `serve` filled with `count` events and closed. */
async function closedJournal(count: number): Promise<{directory: string; folder: string}> {
	const directory = tempDataDir();
	directories.push(directory);
	const journal = await openJournal({directory, flushBeforeAck: false});
	await Promise.all(Array.from({length: count}, async () => journal.accept(newEvent({status: 'ignored'}))));
	await journal.close();
	return {directory, folder: path.join(directory, 'journal')};
}

/** Runs `body` with no Node for a child to start: a read-through fails to spawn. */
async function withoutChildren<T>(body: () => Promise<T>): Promise<T> {
	const real = process.execPath;
	process.execPath = path.join(path.sep, 'nonexistent-platform-tui', 'no-node-here');
	try {
		return await body();
	} finally {
		process.execPath = real;
	}
}

describe('the clean-stop seal', () => {
	it('a journal serve closed cleanly reopens, to read and to serve, without the read-through; serve holds no seal while open', async () => {
		const {directory, folder} = await closedJournal(40);
		expect(existsSync(sealFile(folder))).toBe(true);
		expect(await matchesSeal(folder)).toBe(true);

		await withoutChildren(async () => {
			const reader = await openJournal({directory, mode: 'read'});
			expect((await reader.stats()).count).toBe(40);
			await reader.close();
			// A reader leaves the seal as it was.
			expect(await matchesSeal(folder)).toBe(true);

			const server = await openJournal({directory, flushBeforeAck: false});
			// A writer breaks the seal before it maps the file: dying now would leave none.
			expect(existsSync(sealFile(folder))).toBe(false);
			await server.accept(newEvent({status: 'ignored'}));
			await server.close();
		});

		expect(await matchesSeal(folder)).toBe(true);
		const reader = await openJournal({directory, mode: 'read'});
		expect((await reader.stats()).count).toBe(41);
		await reader.close();
	});

	it('one byte changed since the seal, with the file\'s length and times put back, brings the read-through back', async () => {
		const {directory, folder} = await closedJournal(40);
		const file = path.join(folder, 'data.mdb');
		const before = statSync(file);
		// The last byte of the file: its length stays, and LMDB need not read it to open.
		const fd = openSync(file, 'r+');
		const byte = Buffer.alloc(1);
		readSync(fd, byte, 0, 1, before.size - 1);
		byte[0] = (byte[0] ?? 0) ^ 0xFF;
		writeSync(fd, byte, 0, 1, before.size - 1);
		closeSync(fd);
		utimesSync(file, before.atime, before.mtime);
		expect(statSync(file).size).toBe(before.size);

		expect(await matchesSeal(folder)).toBe(false);
		const refused = await withoutChildren(async () => openJournal({directory, mode: 'read'}).catch((error: unknown) => error));
		expect(refused).toBeInstanceOf(Error);
		expect((refused as Error).message).toContain('no-node-here');
	});

	it('a file of another length than sealed (a page appended) is read through', async () => {
		const {folder} = await closedJournal(5);
		const file = path.join(folder, 'data.mdb');
		const fd = openSync(file, 'r+');
		writeSync(fd, Buffer.alloc(4096), 0, 4096, statSync(file).size);
		closeSync(fd);
		expect(await matchesSeal(folder)).toBe(false);
	});

	it('a replaying process breaks the seal and makes none; a reader makes none either', async () => {
		const {directory, folder} = await closedJournal(5);
		const replaying = await openJournal({directory, mode: 'replay'});
		expect(existsSync(sealFile(folder))).toBe(false);
		await replaying.close();
		expect(existsSync(sealFile(folder))).toBe(false);
		const refused = await withoutChildren(async () => openJournal({directory, mode: 'read'}).catch((error: unknown) => error));
		expect(refused).toBeInstanceOf(Error);

		const reader = await openJournal({directory, mode: 'read'});
		await reader.close();
		expect(existsSync(sealFile(folder))).toBe(false);
	});

	it('a serve told not to read the journal through makes no seal, and a seal left half written is removed by the next writer', async () => {
		const {directory, folder} = await closedJournal(5);
		writeFileSync(`${sealFile(folder)}.4242.tmp`, '{"size":');
		const unchecked = await openJournal({directory, verify: false});
		expect(readdirSync(folder).filter(entry => entry.startsWith('seal.json'))).toEqual([]);
		await unchecked.close();
		expect(existsSync(sealFile(folder))).toBe(false);
	});

	it('a write that failed in the run is remembered after the journal is writable again (no seal then)', () => {
		const health = new WriteHealth();
		expect(health.hasFailed).toBe(false);
		health.failed(new Error('ENOSPC'));
		health.succeeded();
		expect(health.current().writable).toBe(true);
		expect(health.hasFailed).toBe(true);
	});
});
