import {spawnSync} from 'node:child_process';
import {closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, rmSync, statSync, truncateSync, writeSync} from 'node:fs';
import path from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {JournalError, openJournal} from '../../source/receiver/journal/index.js';
import {newEvent, startHolder, tempDataDir, type Holder} from '../receiver/journal/helpers.js';
import {childEnv, cliPath} from '../support/cli.js';

const total = 300;

/** A journal of a few hundred events, closed; returns its data directory and data file. */
async function journalWithEvents(): Promise<{directory: string; file: string}> {
	const directory = tempDataDir();
	const journal = await openJournal({directory, flushBeforeAck: false});
	await Promise.all(Array.from({length: total}, async () => journal.accept(newEvent({status: 'ignored', body: 'x'.repeat(300)}))));
	await journal.close();
	return {directory, file: path.join(directory, 'journal', 'data.mdb')};
}

/** Bytes of a fixed-seed generator, so each run damages the same way. */
function randomBytes(length: number, seed: number): Buffer {
	let state = seed;
	const bytes = Buffer.alloc(length);
	for (let index = 0; index < length; index++) {
		state = ((state * 1_103_515_245) + 12_345) & 0x7F_FF_FF_FF;
		bytes[index] = state & 0xFF;
	}

	return bytes;
}

function overwrite(file: string, at: number, bytes: Buffer): void {
	const fd = openSync(file, 'r+');
	writeSync(fd, bytes, 0, bytes.length, at);
	closeSync(fd);
}

const page = 4096;

const damages: Record<string, (file: string) => void> = {
	'truncated to half': file => {
		truncateSync(file, Math.floor(statSync(file).size / 2 / page) * page);
	},
	'meta pages zeroed': file => {
		overwrite(file, 0, Buffer.alloc(2 * page));
	},
	'random bytes in data pages': file => {
		// The middle third of the data pages (the meta pages and the length stay intact).
		const pages = statSync(file).size / page;
		const from = 2 + Math.floor((pages - 2) / 3);
		const to = 2 + Math.floor(2 * (pages - 2) / 3);
		overwrite(file, from * page, randomBytes((to - from) * page, 7));
	},
	'truncated to 0 bytes': file => {
		truncateSync(file, 0);
	},
	'deleted': file => {
		rmSync(file);
	},
};

function cli(args: string[]) {
	expect(existsSync(cliPath)).toBe(true);
	return spawnSync(process.execPath, [cliPath, ...args], {env: childEnv(), encoding: 'utf8', timeout: 120_000});
}

describe('a damaged journal is refused, never opened', () => {
	for (const [name, damage] of Object.entries(damages)) {
		it(`${name}: serve and events refuse it with one message naming the file and events recover; no signal, no empty journal`, async () => {
			const {directory, file} = await journalWithEvents();
			damage(file);
			const listed = cli(['events', 'list', '--data-dir', directory]);
			expect(listed.signal).toBeNull();
			expect(listed.status).toBe(1);
			expect(listed.stderr).toContain(`The event journal file ${file} is damaged`);
			expect(listed.stderr).toContain('platform-tui events recover');
			expect(listed.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);

			for (const mode of ['serve', 'read'] as const) {
				const refused = await openJournal({directory, mode}).catch((error: unknown) => error);
				expect(refused).toBeInstanceOf(JournalError);
				expect(refused).toMatchObject({code: 'journal-damaged', data: {file}});
			}
		});
	}
});

type Recovered = {type: string; events: number; known: number; ids: number; unreadable: string[]; damaged: string[]; withoutSteps: string[]; failures: string[]; kept: string; journal: string; newMetaPages: boolean};

/** Runs `events recover --json`; checks it ended by itself and that the fresh journal lists what it reports. */
function recover(directory: string): Recovered {
	const run = cli(['events', 'recover', '--json', '--data-dir', directory]);
	expect(run.signal).toBeNull();
	expect(run.status, run.stderr).toBe(0);
	// The last line is the envelope's result (docs/json.md); the one before it is the recovery.
	const result = JSON.parse(run.stdout.trim().split('\n').at(-2) ?? '{}') as Recovered;
	expect(result.type).toBe('recovered');
	expect(existsSync(path.join(result.kept, 'data.mdb'))).toBe(true);
	const listed = cli(['events', 'list', '--json', '--limit', '100000', '--data-dir', directory]);
	expect(listed.signal).toBeNull();
	expect(listed.status, listed.stderr).toBe(0);
	expect(listed.stdout.trim().split('\n').filter(line => line.startsWith('{"type":"event"'))).toHaveLength(result.events);
	return result;
}

/** The root page of the free-page list, as the newer meta page names it. */
function freeListRoot(file: string): bigint {
	const fd = openSync(file, 'r');
	const metas = [0, 1].map(index => {
		const meta = Buffer.alloc(0xA0);
		readSync(fd, meta, 0, meta.length, index * page);
		return {txnId: meta.readBigUInt64LE(0x98), freeRoot: meta.readBigUInt64LE(0x30 + 40)};
	});
	closeSync(fd);
	const [first, second] = metas;
	return (second && first && second.txnId > first.txnId ? second : first)?.freeRoot ?? 0n;
}

describe('a damaged free-page list (which no read touches)', () => {
	it('is refused by serve before its first write aborts it, read by events list, and mended by events recover', async () => {
		const directory = tempDataDir();
		const file = path.join(directory, 'journal', 'data.mdb');
		const journal = await openJournal({directory, flushBeforeAck: false});
		// Commits one after another free the pages they replace: the free list has entries.
		for (let round = 0; round < 10; round++) {
			await Promise.all(Array.from({length: total / 10}, async () => journal.accept(newEvent({status: 'ignored', body: 'x'.repeat(300)}))));
		}

		await journal.close();
		const root = freeListRoot(file);
		expect(root).toBeLessThan(2n ** 63n);
		overwrite(file, (Number(root) * page) + 24, randomBytes(page - 24, 11));

		const refused = await openJournal({directory}).catch((error: unknown) => error);
		expect(refused).toMatchObject({code: 'journal-damaged', data: {file}});
		const listed = cli(['events', 'list', '--json', '--limit', '1000', '--data-dir', directory]);
		expect(listed.status, listed.stderr).toBe(0);
		expect(listed.stdout.trim().split('\n').filter(line => line.startsWith('{"type":"event"'))).toHaveLength(total);

		expect(recover(directory)).toMatchObject({events: total, unreadable: [], failures: []});
		const reopened = await openJournal({directory});
		await reopened.accept(newEvent({status: 'ignored'}));
		await reopened.close();
	});
});

describe('events recover', () => {
	const holders: Holder[] = [];
	afterEach(async () => {
		await Promise.all(holders.splice(0).map(async holder => holder.kill()));
	});

	it('copies every other event of a journal with one damaged record: each with its state and steps, every id', async () => {
		const {directory, file} = await journalWithEvents();
		const journal = await openJournal({directory, mode: 'replay'});
		const chosen = newEvent();
		await journal.accept(chosen);
		await journal.replay(chosen.id, async job => {
			await job.recordStep({name: 'searched', at: new Date().toISOString(), data: {hits: 3}});
			return {status: 'answered'};
		});
		const damaged = newEvent({status: 'ignored', body: 'marker-of-the-damaged-one'});
		await journal.accept(damaged);
		await journal.close();
		// A letter of its body in every copy of its page: it still decodes, its checksum fails.
		const bytes = readFileSync(file);
		for (let at = bytes.indexOf('marker-of-the'); at >= 0; at = bytes.indexOf('marker-of-the', at + 1)) {
			overwrite(file, at, Buffer.from('M'));
		}

		const result = recover(directory);
		expect(result).toMatchObject({events: total + 1, known: total + 2, ids: total + 2, unreadable: [], damaged: [damaged.id], withoutSteps: [], failures: [], newMetaPages: false});
		const shown = cli(['events', 'show', chosen.id, '--json', '--data-dir', directory]);
		expect(shown.status, shown.stderr).toBe(0);
		const detail = JSON.parse(shown.stdout.split('\n')[0] ?? '') as {status: string; steps: Array<{name: string}>};
		expect(detail.status).toBe('answered');
		expect(detail.steps.map(step => step.name)).toEqual(['searched']);
		// The fresh journal is a journal serve opens, and the copied ids are still known.
		const reopened = await openJournal({directory});
		expect(await reopened.accept(newEvent({id: chosen.id}))).toBe('duplicate');
		expect(await reopened.accept(newEvent({id: damaged.id}))).toBe('duplicate');
		await reopened.close();
	});

	for (const name of ['truncated to half', 'meta pages zeroed', 'random bytes in data pages'] as const) {
		it(`${name}: copies what is readable into a fresh journal, keeps the damaged one, never a signal`, async () => {
			const {directory, file} = await journalWithEvents();
			damages[name]?.(file);
			const result = recover(directory);
			expect(result.events).toBeGreaterThan(0);
			expect(result.events).toBeLessThanOrEqual(total);
			expect(result.newMetaPages).toBe(name === 'meta pages zeroed');
			if (name === 'meta pages zeroed') {
				// Only the meta pages were lost: every event is still in the data pages.
				expect(result.events).toBe(total);
			} else {
				expect(result.failures.length).toBeGreaterThan(0);
			}

			expect(readdirSync(directory).filter(entry => entry.startsWith('journal.damaged-'))).toHaveLength(1);
		});
	}

	it('says so with exit 1 when nothing can be read, and changes nothing', async () => {
		const {directory, file} = await journalWithEvents();
		truncateSync(file, 0);
		const run = cli(['events', 'recover', '--data-dir', directory]);
		expect(run.signal).toBeNull();
		expect(run.status).toBe(1);
		expect(run.stderr).toContain(`No event could be read from the journal file ${file}`);
		expect(readdirSync(directory)).toEqual(['journal']);
	});

	it('is refused while a serve has the journal open', async () => {
		const {directory} = await journalWithEvents();
		const holder = await startHolder(directory, 'serve');
		holders.push(holder);
		const run = cli(['events', 'recover', '--data-dir', directory]);
		expect(run.status).toBe(1);
		expect(run.stderr).toContain(`is in use by process ${holder.pid}`);
		expect(readdirSync(directory)).toEqual(['journal']);
	});
});
