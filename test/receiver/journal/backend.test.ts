import {closeSync, openSync, readFileSync, statSync, writeSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {BackendUnavailableError, type EventBackend, type JobHandler, type StoredEvent} from '../../../source/receiver/store/backend.js';
import {JournalBackend, JournalError, openJournal} from '../../../source/receiver/journal/index.js';
import {waitFor} from '../../support/wait.js';
import {newEvent, newId, openedPerTest, startHolder, tempDataDir} from './helpers.js';


/** Makes the newest meta page of `file` name one page past the file's end, as while LMDB grows it. */
function growingMidWrite(file: string): void {
	const bytes = readFileSync(file);
	const pageSize = bytes.readUInt32LE(0x30);
	const newest = bytes.readBigUInt64LE(0x98) > bytes.readBigUInt64LE(pageSize + 0x98) ? 0 : pageSize;
	const pages = BigInt(statSync(file).size / pageSize);
	const fd = openSync(file, 'r+');
	try {
		const lastPage = Buffer.alloc(8);
		lastPage.writeBigUInt64LE(pages);
		writeSync(fd, lastPage, 0, 8, newest + 0x90);
	} finally {
		closeSync(fd);
	}
}
const {journal, holders} = openedPerTest();

const answering: JobHandler = async job => {
	await job.recordStep({name: 'log-created', at: new Date().toISOString(), data: {order: 1, id: 'log_1'}});
	await job.recordStep({name: 'message-written', at: new Date().toISOString(), data: {apology: false}});
	return {status: 'answered'};
};

async function finished(backend: EventBackend, id: string): Promise<StoredEvent> {
	let event: StoredEvent | undefined;
	await waitFor(async () => {
		event = await backend.get(id);
		return event?.status === 'answered' || event?.status === 'failed';
	});
	if (!event) {
		throw new Error(`event ${id} not found`);
	}

	return event;
}

describe('journal: accept and exactly once', () => {
	it('stores an event once, also across a restart, and answers duplicate after', async () => {
		const directory = tempDataDir();
		const first = await journal(directory);
		const event = newEvent();
		const results = await Promise.all([first.accept(event), first.accept(event)]);
		expect(results.sort()).toEqual(['duplicate', 'stored']);
		expect(await first.accept(event)).toBe('duplicate');
		const stored = await first.get(event.id);
		expect(stored).toMatchObject({id: event.id, status: 'received', body: event.body, headers: event.headers, attempts: 0, steps: []});
		await first.close();

		const second = await journal(directory);
		expect(await second.accept(event)).toBe('duplicate');
		expect((await second.stats()).count).toBe(1);
		expect((await second.stats()).bytes).toBeGreaterThan(0);
	});

	it('a process killed before its ids reached the index: readers still find the events, and the next serve answers duplicate', async () => {
		const directory = tempDataDir();
		// The second event arrives keyed an hour before the first (a clock set back), below the mark.
		const ids = [newId(), newId(), newId()];
		const holder = await startHolder(directory, 'accept', `${ids[0] ?? ''}@0,${ids[1] ?? ''}@3600000,${ids[2] ?? ''}@0`);
		holders.push(holder);
		const reader = await journal(directory, {mode: 'read'});
		// Other processes read an acknowledged event once the writer has moved it into LMDB (wal/apply.ts).
		for (const id of ids) {
			await waitFor(async () => (await reader.get(id))?.id === id);
		}

		await holder.kill();
		const next = await journal(directory);
		// Known from the moment the journal opens, before processing starts.
		expect(await next.accept(newEvent({id: ids[1] ?? '', status: 'ignored'}))).toBe('duplicate');
		await next.start(answering, {concurrency: 1});
		for (const id of ids) {
			expect(await next.accept(newEvent({id, status: 'ignored'}))).toBe('duplicate');
		}

		expect((await next.stats()).count).toBe(3);
		for (const id of ids) {
			expect((await reader.get(id))?.id).toBe(id);
		}
	});

	it('without a flush before the ack, events are still stored and read back by another open', async () => {
		const directory = tempDataDir();
		const fast = await journal(directory, {flushBeforeAck: false});
		const event = newEvent();
		expect(await fast.accept(event)).toBe('stored');
		const reader = await journal(directory, {mode: 'read'});
		await waitFor(async () => (await reader.get(event.id)) !== undefined);
		expect(await fast.accept(event)).toBe('duplicate');
	});

	it('throws BackendUnavailableError when the journal cannot be written', async () => {
		const backend = await journal(tempDataDir(), {failWrites: () => true});
		await expect(backend.accept(newEvent())).rejects.toBeInstanceOf(BackendUnavailableError);
	});
});

describe('journal: processing', () => {
	it('processes received events with their steps journaled, leaves ignored ones alone', async () => {
		const backend = await journal(tempDataDir());
		const chosen = newEvent();
		const ignored = newEvent({status: 'ignored', event: 'platform.chat.user-message.created', note: 'not a chosen event'});
		await backend.accept(chosen);
		await backend.accept(ignored);
		const seen: string[] = [];
		await backend.start(async job => {
			seen.push(job.event.id);
			return answering(job);
		}, {concurrency: 2});
		const done = await finished(backend, chosen.id);
		expect(done).toMatchObject({status: 'answered', attempts: 1});
		expect(done.durationMs).toBeGreaterThanOrEqual(0);
		expect(done.steps.map(step => step.name)).toEqual(['log-created', 'message-written']);
		expect(seen).toEqual([chosen.id]);
		expect((await backend.get(ignored.id))?.status).toBe('ignored');
	});

	it('processes in arrival order with few ids in memory: the rest wait on disk', async () => {
		const backend = await journal(tempDataDir(), {memoryLimit: 2});
		const order: string[] = [];
		const events = Array.from({length: 12}, (_, index) => newEvent({receivedAt: new Date(Date.now() + index).toISOString()}));
		let release: () => void = () => undefined;
		const gate = new Promise<void>(resolve => {
			release = resolve;
		});
		await backend.start(async job => {
			order.push(job.event.id);
			await gate;
			return {status: 'answered'};
		}, {concurrency: 1});
		for (const event of events) {
			await backend.accept(event);
		}

		release();
		await finished(backend, events[11]?.id ?? '');
		expect(order).toEqual(events.map(event => event.id));
	});

	it('a handler that throws fails the event with its reason', async () => {
		const backend = await journal(tempDataDir());
		const event = newEvent();
		await backend.accept(event);
		await backend.start(async () => Promise.reject(new Error('the platform is down')), {concurrency: 1});
		expect(await finished(backend, event.id)).toMatchObject({status: 'failed', error: 'the platform is down'});
	});

	it('resumes an event left in processing by a killed process, with the steps it recorded', async () => {
		const directory = tempDataDir();
		const id = newId();
		const holder = await startHolder(directory, 'crash', id);
		holders.push(holder);
		expect(holder.info.attempts).toBe(1);
		await holder.kill();

		const backend = await journal(directory);
		const resumed: StoredEvent[] = [];
		await backend.start(async job => {
			resumed.push(structuredClone(job.event));
			await job.recordStep({name: 'message-written', at: new Date().toISOString()});
			return {status: 'answered'};
		}, {concurrency: 1});
		const done = await finished(backend, id);
		expect(resumed).toHaveLength(1);
		expect(resumed[0]?.status).toBe('processing');
		expect(resumed[0]?.steps.map(step => step.name)).toEqual(['log-created']);
		expect(done).toMatchObject({status: 'answered', attempts: 2});
		expect(done.steps.map(step => step.name)).toEqual(['log-created', 'message-written']);
	});
});

describe('journal: list, replay, retention', () => {
	it('lists newest first with status, type, since and limit filters', async () => {
		const backend = await journal(tempDataDir());
		const now = Date.now();
		const old = newEvent({receivedAt: new Date(now - 3_600_000).toISOString()});
		const message = newEvent({event: 'platform.chat.user-message.created', status: 'ignored', receivedAt: new Date(now - 1000).toISOString()});
		const recent = newEvent({receivedAt: new Date(now).toISOString()});
		for (const event of [old, message, recent]) {
			await backend.accept(event);
		}

		const ids = async (filter: Parameters<EventBackend['list']>[0]) => (await backend.list(filter)).map(event => event.id);
		expect(await ids({})).toEqual([recent.id, message.id, old.id]);
		expect(await ids({status: 'ignored'})).toEqual([message.id]);
		expect(await ids({type: 'user-message.created'})).toEqual([message.id]);
		expect(await ids({type: 'platform.chat.external-module.chosen'})).toEqual([recent.id, old.id]);
		expect(await ids({sinceMs: now - 60_000})).toEqual([recent.id, message.id]);
		expect(await ids({limit: 1})).toEqual([recent.id]);
	});

	it('replays a failed event as a fresh attempt; an unknown id comes back with the close ones', async () => {
		const backend = await journal(tempDataDir());
		const event = newEvent({id: 'evt_0123456789abcdef'});
		await backend.accept(event);
		const failed = await backend.replay(event.id, async job => {
			await job.recordStep({name: 'failing', at: new Date().toISOString(), error: 'no model'});
			return {status: 'failed', error: 'no model'};
		});
		expect(failed).toEqual({outcome: 'done', result: {status: 'failed', error: 'no model'}});
		const again = await backend.replay(event.id, answering);
		expect(again).toEqual({outcome: 'done', result: {status: 'answered'}});
		const stored = await backend.get(event.id);
		expect(stored).toMatchObject({status: 'answered', attempts: 2});
		expect(stored?.error).toBeUndefined();
		expect(stored?.steps.map(step => step.name)).toEqual(['log-created', 'message-written']);
		expect(await backend.replay('evt_0123456789abcdeg', answering)).toEqual({outcome: 'unknown', near: [event.id]});
	});

	it('prunes by age and by count; ids stay for 24 h so a redelivery is still a duplicate', async () => {
		const backend = await journal(tempDataDir(), {maxEntries: 3, maxAgeMs: 2 * 24 * 3_600_000});
		if (!(backend instanceof JournalBackend)) {
			throw new TypeError('expected the journal backend');
		}

		const now = Date.now();
		const ancient = newEvent({receivedAt: new Date(now - 3 * 24 * 3_600_000).toISOString(), status: 'ignored'});
		const events = Array.from({length: 5}, (_, index) => newEvent({receivedAt: new Date(now - 1000 + index).toISOString(), status: 'ignored'}));
		for (const event of [ancient, ...events]) {
			await backend.accept(event);
		}

		expect(await backend.prune(now)).toEqual({events: 3, ids: 1});
		expect((await backend.list({})).map(event => event.id)).toEqual(events.slice(2).map(event => event.id).reverse());
		expect(await backend.get(ancient.id)).toBeUndefined();
		// Dropped by count a moment ago: still known as delivered.
		expect(await backend.accept({...ancient, id: events[0]?.id ?? ''})).toBe('duplicate');
		// Dropped by age (beyond 24 h): forgotten.
		expect(await backend.accept(ancient)).toBe('stored');
	});
});

describe('journal: several processes', () => {
	it('refuses a second serve on one directory, naming the process; reads work meanwhile; a dead owner is taken over', async () => {
		const directory = tempDataDir();
		const holder = await startHolder(directory, 'serve');
		holders.push(holder);
		const refused = await openJournal({directory}).catch((error: unknown) => error);
		expect(refused).toBeInstanceOf(JournalError);
		expect(refused).toMatchObject({code: 'journal-locked', data: {directory, pid: holder.pid}});
		const reader = await journal(directory, {mode: 'read'});
		expect(await reader.list({})).toEqual([]);
		await holder.kill();
		const serve = await journal(directory);
		expect(serve.kind).toBe('journal');
	});

	it('checks the lock before the file: a journal in use whose file is mid-growth is refused with the owner\'s pid, never called damaged, and read as it is', async () => {
		const directory = tempDataDir();
		const setup = await journal(directory);
		const event = newEvent({status: 'ignored'});
		await setup.accept(event);
		await setup.close();
		const holder = await startHolder(directory, 'serve');
		holders.push(holder);
		// As a reader finds the file while its owner extends it: the newest meta page names one
		// page more than the file holds yet.
		growingMidWrite(path.join(directory, 'journal', 'data.mdb'));
		const refused = await openJournal({directory}).catch((error: unknown) => error);
		expect(refused).toMatchObject({code: 'journal-locked', data: {directory, pid: holder.pid}});
		const reader = await journal(directory, {mode: 'read'});
		expect((await reader.list({})).map(stored => stored.id)).toEqual([event.id]);
	});

	it('refuses a replay while another process holds the event, and takes over its claim once that process died', async () => {
		const directory = tempDataDir();
		const setup = await journal(directory);
		const event = newEvent();
		await setup.accept(event);
		const holder = await startHolder(directory, 'replay', event.id);
		holders.push(holder);
		expect(await setup.replay(event.id, answering)).toEqual({outcome: 'busy', holder: `pid ${holder.pid}`});
		await holder.kill();
		expect(await setup.replay(event.id, answering)).toEqual({outcome: 'done', result: {status: 'answered'}});
	});
});
