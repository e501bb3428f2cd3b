/**
 * `events recover` on a journal file cut short in the middle of a page, about half way: LMDB dies
 * of SIGBUS reading it, so the file's pages are read directly; the events whose pages are left come
 * back, and every id the cut file still holds in a node (an event's or an index's key, a branch
 * page's key above a lost page) stays an exactly-once id of the fresh journal, so a redelivery of
 * it is still a duplicate. Before, the ids only branch pages or value-less keys named were dropped
 * (251 of 600 acknowledged ids taken as new after a cut at 50 %).
 */
import {spawnSync} from 'node:child_process';
import {readFileSync, statSync, truncateSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {openJournal} from '../../source/receiver/journal/index.js';
import {newEvent, tempDataDir} from '../receiver/journal/helpers.js';
import {childEnv, cliPath} from '../support/cli.js';

const total = 600;
const page = 4096;

/**
 * Whether `id` is in a node of a page of `bytes` (from its page's `upper` bound on, where LMDB
 * keeps the nodes), not only in the free space between, where a page split leaves stale bytes.
 */
function inNode(bytes: Buffer, id: string): boolean {
	for (let at = bytes.indexOf(id); at >= 0; at = bytes.indexOf(id, at + 1)) {
		const start = Math.floor(at / page) * page;
		if (start + 0x18 <= bytes.length && at - start >= bytes.readUInt16LE(start + 0x16)) {
			return true;
		}
	}

	return false;
}

describe('events recover on a truncated journal', () => {
	it('reads the pages LMDB cannot, keeps the events they hold and every id the file still names, and says N of M', async () => {
		const directory = tempDataDir();
		const journal = await openJournal({directory, flushBeforeAck: false});
		const events = Array.from({length: total}, (_, index) => newEvent({status: index % 4 === 0 ? 'logged' : 'ignored', body: JSON.stringify({index, text: 'b'.repeat(500 + (index % 7))})}));
		for (let index = 0; index < total; index += 50) {
			await Promise.all(events.slice(index, index + 50).map(async event => journal.accept(event)));
		}

		await journal.close();
		const file = path.join(directory, 'journal', 'data.mdb');
		truncateSync(file, (Math.floor(statSync(file).size / 2 / page) * page) + (page / 2));
		const survivors = events.filter(event => inNode(readFileSync(file), event.id)).map(event => event.id);

		const run = spawnSync(process.execPath, [cliPath, 'events', 'recover', '--data-dir', directory], {encoding: 'utf8', env: childEnv(), timeout: 120_000});
		expect(run.signal).toBeNull();
		expect(run.status, run.stderr).toBe(0);
		const counts = /Recovered (\d+) of (\d+) events and (\d+) event ids/.exec(run.stdout);
		const saved = /LMDB could not read it to its end; (\d+) of those (\d+) events and (\d+) of the (\d+) ids were read from its pages directly\./.exec(run.stdout);
		expect(counts, run.stdout).not.toBeNull();
		expect(saved, run.stdout).not.toBeNull();
		const recovered = Number(counts?.[1]);
		const ids = Number(counts?.[3]);
		expect(recovered).toBeGreaterThan(total / 3);
		expect(Number(counts?.[2])).toBe(ids);
		expect(ids).toBeGreaterThanOrEqual(survivors.length);
		expect(Number(saved?.[1])).toBeGreaterThan(0);
		expect(Number(saved?.[2])).toBe(recovered);
		expect(Number(saved?.[4])).toBe(ids);

		// Every recovered event's id is an exactly-once id of the fresh journal; a lost one is new.
		const fresh = await openJournal({directory});
		const listed = await fresh.list({});
		expect(listed).toHaveLength(recovered);
		const byId = new Map(events.map(event => [event.id, event]));
		for (const stored of listed) {
			expect(stored.body).toBe(byId.get(stored.id)?.body);
			expect(stored.status).toBe(byId.get(stored.id)?.status);
		}

		// Every id the cut file still names, its event read or not, is a duplicate: none is taken as new.
		const taken: string[] = [];
		for (const id of survivors) {
			if (await fresh.accept(newEvent({id, status: 'ignored'})) !== 'duplicate') {
				taken.push(id);
			}
		}

		expect(taken).toEqual([]);

		await fresh.close();
	});
});
