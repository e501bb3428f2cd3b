/**
 * `events recover` on a journal file cut short (`truncate -s 620544 journal/data.mdb`): LMDB dies
 * of SIGBUS reading it, so the file's pages are read directly; most events come back, and every
 * id found stays an exactly-once id of the fresh journal, so a redelivery is still a duplicate.
 */
import {spawnSync} from 'node:child_process';
import {statSync, truncateSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {openJournal} from '../../source/receiver/journal/index.js';
import {newEvent, tempDataDir} from '../journal/helpers.js';
import {childEnv, cliPath} from '../support/cli.js';

const total = 600;
const cutAt = 620_544;

describe('events recover on a truncated journal', () => {
	it('reads the pages LMDB cannot, keeps most events and their ids, and says how many it saved', async () => {
		const directory = tempDataDir();
		const journal = await openJournal({directory, flushBeforeAck: false});
		const events = Array.from({length: total}, (_, index) => newEvent({status: index % 4 === 0 ? 'logged' : 'ignored', body: JSON.stringify({index, text: 'b'.repeat(500 + (index % 7))})}));
		for (let index = 0; index < total; index += 50) {
			await Promise.all(events.slice(index, index + 50).map(async event => journal.accept(event)));
		}

		await journal.close();
		const file = path.join(directory, 'journal', 'data.mdb');
		expect(statSync(file).size).toBeGreaterThan(cutAt);
		truncateSync(file, cutAt);

		const run = spawnSync(process.execPath, [cliPath, 'events', 'recover', '--data-dir', directory], {encoding: 'utf8', env: childEnv(), timeout: 120_000});
		expect(run.signal).toBeNull();
		expect(run.status, run.stderr).toBe(0);
		const counts = /Recovered (\d+) events and (\d+) event ids/.exec(run.stdout);
		const saved = /reading its pages directly saved (\d+) more events? and (\d+) more event ids?/.exec(run.stdout);
		expect(counts, run.stdout).not.toBeNull();
		expect(saved, run.stdout).not.toBeNull();
		const recovered = Number(counts?.[1]);
		const ids = Number(counts?.[2]);
		expect(recovered).toBeGreaterThan(total / 2);
		expect(ids).toBeGreaterThanOrEqual(recovered);
		expect(Number(saved?.[1])).toBeGreaterThan(0);

		// Every recovered event's id is an exactly-once id of the fresh journal; a lost one is new.
		const fresh = await openJournal({directory});
		const listed = await fresh.list({});
		expect(listed).toHaveLength(recovered);
		const byId = new Map(events.map(event => [event.id, event]));
		for (const stored of listed) {
			expect(stored.body).toBe(byId.get(stored.id)?.body);
			expect(stored.status).toBe(byId.get(stored.id)?.status);
		}

		const sample = listed.filter((_, index) => index % 25 === 0);
		for (const stored of sample) {
			expect(await fresh.accept(newEvent({id: stored.id, status: 'ignored'}))).toBe('duplicate');
		}

		await fresh.close();
	});
});
