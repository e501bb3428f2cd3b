import {afterEach, describe, expect, it} from 'vitest';
import type {EventBackend, JobHandler, StoredEvent} from '../../source/receiver/store/backend.js';
import {openJournal} from '../../source/receiver/journal/index.js';
import {newEvent, startHolder, tempDataDir, type Holder} from '../receiver/journal/helpers.js';
import {waitFor} from '../support/wait.js';

const open: EventBackend[] = [];
const holders: Holder[] = [];

afterEach(async () => {
	await Promise.all(open.splice(0).map(async backend => backend.close()));
	await Promise.all(holders.splice(0).map(async holder => holder.kill()));
});

const answering: JobHandler = async job => {
	await job.recordStep({name: 'message-written', at: new Date().toISOString(), data: {apology: false}});
	return {status: 'answered'};
};

async function serve(directory: string): Promise<EventBackend> {
	const backend = await openJournal({directory, claimCheckMs: 100, indexFlushMs: 20});
	open.push(backend);
	await backend.start(answering, {concurrency: 1});
	return backend;
}

async function answered(backend: EventBackend, id: string): Promise<StoredEvent> {
	return waitFor(async () => backend.get(id), {until: event => event?.status === 'answered', what: `event ${id} answered`}) as Promise<StoredEvent>;
}

describe('an events replay killed mid-way', () => {
	it('a running serve takes over its dead claim within the claim check time and finishes the event', async () => {
		const directory = tempDataDir();
		const running = await serve(directory);
		const event = newEvent();
		await running.accept(event);
		expect((await answered(running, event.id)).attempts).toBe(1);

		const replay = await startHolder(directory, 'replay', event.id);
		holders.push(replay);
		expect((await running.get(event.id))?.status).toBe('processing');
		await replay.kill();
		const finished = await answered(running, event.id);
		expect(finished.attempts).toBe(3);
	});

	it('the next serve takes it over at start-up', async () => {
		const directory = tempDataDir();
		const first = await serve(directory);
		const event = newEvent();
		await first.accept(event);
		await answered(first, event.id);
		await first.close();
		open.splice(0);

		const replay = await startHolder(directory, 'replay', event.id);
		holders.push(replay);
		await replay.kill();
		const next = await serve(directory);
		expect((await answered(next, event.id)).attempts).toBe(3);
	});
});
