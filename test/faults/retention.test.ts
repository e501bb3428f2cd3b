import {afterEach, describe, expect, it} from 'vitest';
import {BackendUnavailableError, type EventBackend, type JobHandler} from '../../source/receiver/store/backend.js';
import {JournalBackend, openJournal} from '../../source/receiver/journal/index.js';
import {newEvent} from '../receiver/journal/helpers.js';
import {waitFor} from '../support/wait.js';
import {tempDataDir} from '../receiver/journal/helpers.js';

const open: EventBackend[] = [];

afterEach(async () => {
	await Promise.all(open.splice(0).map(async backend => backend.close()));
});

async function journal(directory: string, maxEntries: number): Promise<JournalBackend> {
	const backend = await openJournal({directory, maxEntries, indexFlushMs: 20});
	open.push(backend);
	if (!(backend instanceof JournalBackend)) {
		throw new TypeError('not a journal');
	}

	return backend;
}

describe('retention never removes an unfinished event', () => {
	it('past the count bound of unfinished events new deliveries are refused (busy), and neither the count nor the age bound prunes them, also across a restart', async () => {
		const directory = tempDataDir();
		// Nothing processes them (a platform too slow to keep up): they stay unfinished.
		const first = await journal(directory, 10);
		const ids: string[] = [];
		const refusals: unknown[] = [];
		for (let index = 0; index < 13; index++) {
			const event = newEvent();
			try {
				await first.accept(event);
				ids.push(event.id);
			} catch (error) {
				refusals.push(error);
			}
		}

		expect(ids).toHaveLength(10);
		expect(refusals).toHaveLength(3);
		expect(refusals[0]).toBeInstanceOf(BackendUnavailableError);
		expect((refusals[0] as BackendUnavailableError).code).toBe('backend-busy');
		// Recorded-only events are finished at once: they are still taken, and pruned first.
		for (let index = 0; index < 5; index++) {
			await first.accept(newEvent({status: 'ignored'}));
		}

		expect(await first.prune(Date.now() + (30 * 24 * 60 * 60 * 1000))).toMatchObject({events: 5});
		await first.close();
		open.splice(0);

		const second = await journal(directory, 10);
		expect(await second.prune(Date.now() + (30 * 24 * 60 * 60 * 1000))).toMatchObject({events: 0});
		for (const id of ids) {
			expect((await second.get(id))?.status).toMatch(/received|processing/);
		}

		await expect(second.accept(newEvent())).rejects.toBeInstanceOf(BackendUnavailableError);
		const answering: JobHandler = async () => Promise.resolve({status: 'answered'});
		await second.start(answering, {concurrency: 2});
		await waitFor(async () => (await second.list({status: 'answered'})).length === 10, {what: 'all ten answered'});
		expect(await second.accept(newEvent())).toBe('stored');
		expect(await second.prune()).toMatchObject({events: 1});
	});
});
