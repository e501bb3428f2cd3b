import {afterEach, describe, expect, it} from 'vitest';
import type {EventBackend} from '../../../source/receiver/store/backend.js';
import {openJournal} from '../../../source/receiver/journal/index.js';
import {journalDirectory} from '../../../source/receiver/journal/open/location.js';
import {fromStored, newEventTuple, toTuple, type EventTuple} from '../../../source/receiver/journal/records/record-codec.js';
import {openStores, readEvent, writeEvent} from '../../../source/receiver/journal/store.js';
import type {EventRecord, TimeKey} from '../../../source/receiver/journal/records/shapes.js';
import {newEvent, tempDataDir} from './helpers.js';

const open: EventBackend[] = [];

afterEach(async () => {
	await Promise.all(open.splice(0).map(async backend => backend.close()));
});

function record(overrides: Partial<EventRecord> = {}): EventRecord {
	const event = newEvent();
	return {...event, updatedAt: event.receivedAt, attempts: 0, generation: 0, ...overrides};
}

const keyOf = (event: EventRecord): TimeKey => [Date.parse(event.receivedAt), event.id];

/** Only the keys whose value is defined (the decoded record names every field, undefined when absent). */
function defined(value: object): Record<string, unknown> {
	return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined));
}

describe('event record format', () => {
	it('gives back every field of a record, whatever is set', () => {
		const cases: EventRecord[] = [
			record(),
			record({status: 'answered', updatedAt: '2026-11-24T10:00:00.000Z', finishedAt: '2026-11-24T10:00:01.000Z', durationMs: 1234, attempts: 2, generation: 1}),
			record({status: 'failed', error: 'the platform answered 500', note: 'a note', bodyEncoding: 'base64', body: Buffer.from([0xff, 0xfe]).toString('base64')}),
			record({event: 'platform.chat.something-else', chatId: undefined, status: 'ignored', note: 'unhandled event type'}),
			record({headers: {}}),
			record({headers: {'x-platform-signature': 'ab', 'x-platform-created-at': '1795491772', 'x-platform-id': 'evt_other', 'user-agent': 'curl/8', 'x-custom': 'kept'}}),
			record({id: 'evt_unicode_ü', body: '\uFEFF{"id":"evt_unicode_ü","text":"grüße"}'}),
		];
		for (const original of cases) {
			const key = keyOf(original);
			expect(defined(fromStored(toTuple(original, key), key))).toEqual(defined(original));
		}
	});

	it('writes a new event as its record would be written, without field names', () => {
		const event = newEvent({headers: {'x-platform-signature': 'a'.repeat(64), 'x-platform-created-at': '1795491772', 'x-platform-id': 'evt_1', 'user-agent': 'undici'}, id: 'evt_1'});
		const tuple = newEventTuple(event, 1000);
		expect(tuple).toEqual(toTuple({...event, updatedAt: event.receivedAt, attempts: 0, generation: 0}, [1000, 'evt_1']));
		// The known type is a number and the id header, the same as the id, is not repeated.
		expect(tuple[2]).toBe(1);
		expect(JSON.stringify(tuple).split('evt_1').length - 1).toBe(2);
	});

	it('gives back every field through LMDB itself, undefined and absent alike', async () => {
		const stores = openStores(journalDirectory(tempDataDir()));
		try {
			const original = record({status: 'failed', error: 'the platform answered 500', finishedAt: '2026-11-24T10:00:01.000Z', durationMs: 0, attempts: 1, chatId: undefined, note: '', headers: {'x-platform-signature': 'ab', 'x-custom': 'kept'}});
			const key: [number, string] = [Date.parse(original.receivedAt), original.id];
			await writeEvent(stores, key, original);
			const found = readEvent(stores, key);
			expect(found?.record).toEqual(original);
			// Every field is named, each undefined when it does not apply: one shape for every record read.
			expect(Object.keys(found?.record ?? {}).sort()).toEqual(['attempts', 'body', 'bodyEncoding', 'chatId', 'durationMs', 'error', 'event', 'finishedAt', 'generation', 'headers', 'id', 'note', 'receivedAt', 'status', 'updatedAt']);
			expect(found?.record.chatId).toBeUndefined();
			expect(found?.record.note).toBe('');
			expect(found?.record.durationMs).toBe(0);
		} finally {
			await stores.root.close();
		}
	});

	it('refuses a record in a format it does not know, naming the event', () => {
		const later = [2, ...toTuple(record({id: 'evt_from_a_later_version'}), [1, 'evt_from_a_later_version']).slice(1)] as unknown as EventTuple;
		expect(() => fromStored(later, [1, 'evt_from_a_later_version'])).toThrow(expect.objectContaining({code: 'journal-record-format', data: {format: '2', id: 'evt_from_a_later_version'}}) as Error);
	});

	it('reads a record written as an object by an earlier version as it is', () => {
		const legacy = record({status: 'answered'});
		expect(fromStored(legacy, keyOf(legacy))).toBe(legacy);
	});

	it('a journal with records in both formats lists, shows, finds duplicates and replays them', async () => {
		const directory = tempDataDir();
		const legacy = record({status: 'logged', event: 'platform.chat.user-message.created'});
		const stores = openStores(journalDirectory(directory));
		// As an earlier version wrote it: the record object itself, its id in the index.
		await stores.events.put([Date.parse(legacy.receivedAt), legacy.id], legacy);
		await stores.seen.put(legacy.id, Date.parse(legacy.receivedAt));
		await stores.root.close();

		const journal = await openJournal({directory});
		open.push(journal);
		const current = newEvent({status: 'logged', event: 'platform.chat.user-message.created'});
		expect(await journal.accept(current)).toBe('stored');
		expect(await journal.accept({...legacy, status: 'logged'})).toBe('duplicate');
		const listed = await journal.list({});
		expect(listed.map(event => event.id).sort()).toEqual([legacy.id, current.id].sort());
		expect(await journal.get(legacy.id)).toMatchObject({id: legacy.id, body: legacy.body, headers: legacy.headers, status: 'logged'});
		expect(await journal.get(current.id)).toMatchObject({id: current.id, body: current.body, headers: current.headers, status: 'logged', updatedAt: current.receivedAt});
		const replayed = await journal.replay(legacy.id, async () => Promise.resolve({status: 'answered' as const}));
		expect(replayed).toMatchObject({outcome: 'done'});
		expect(await journal.get(legacy.id)).toMatchObject({status: 'answered', attempts: 1});
	});
});
