/**
 * Fills a journal directly in LMDB (not through HTTP or `accept`): `count` events, one every
 * `stepMs` up to `newestMs`, with their exactly-once entries, in large write batches. For the
 * inspector's tests and bench (a million events in a few seconds).
 */
import {mkdirSync} from 'node:fs';
import type {EventStatus, NewEvent} from '../../../source/receiver/store/backend.js';
import {journalDirectory} from '../../../source/receiver/journal/open/location.js';
import {newEventTuple, toTuple} from '../../../source/receiver/journal/records/record-codec.js';
import {journalExists, openStores} from '../../../source/receiver/journal/store.js';
import type {TimeKey} from '../../../source/receiver/journal/records/shapes.js';

export type FixtureEvent = Pick<NewEvent, 'id' | 'event' | 'chatId' | 'body'> & {status: EventStatus};

/** The `index`-th event of a filled journal: ids `evt_` + 24 hex digits; every 7th a user message, every 5th other one failed. */
export function fixtureEvent(index: number): FixtureEvent {
	const id = `evt_${index.toString(16).padStart(24, '0')}`;
	const chosen = index % 7 !== 0;
	const chatId = `chat_${(index % 97).toString().padStart(4, '0')}`;
	// The bodies as JSON.stringify writes them (nothing in them needs escaping), without building
	// the objects: a million of them are most of the fixture's own time.
	return chosen
		? {id, event: 'platform.chat.external-module.chosen', status: index % 5 === 0 ? 'failed' : 'received', chatId, body: `{"id":"${id}","event":"platform.chat.external-module.chosen","payload":{"chatid":"${chatId}","userMessage":{"text":"question number ${index}"}}}`}
		: {id, event: 'platform.chat.user-message.created', status: 'logged', chatId, body: `{"id":"${id}","event":"platform.chat.user-message.created","payload":{"chatId":"${chatId}","text":"message number ${index}"}}`};
}

export async function fillJournal(dataDirectory: string, count: number, options: {newestMs?: number; stepMs?: number; event?: (index: number) => FixtureEvent} = {}): Promise<void> {
	const folder = journalDirectory(dataDirectory);
	mkdirSync(folder, {recursive: true});
	const fresh = !journalExists(folder);
	const stores = openStores(folder, {flushBeforeAck: false});
	const newestMs = options.newestMs ?? Date.now();
	const stepMs = options.stepMs ?? 1000;
	const make = options.event ?? fixtureEvent;
	const headers = {'x-platform-signature': 'feedfacecafebeef0123456789abcdef'};
	try {
		const batch = 50_000;
		// Into a new journal, the fixture's own events arrive in ascending key order (time, then ids
		// of zero-padded hex): each is appended to its B-tree's last page, not searched for from the root.
		const put = {append: fresh && options.event === undefined};
		for (let start = 0; start < count; start += batch) {
			// Synchronous puts in one synchronous transaction: no promise per put (two million of them).
			stores.root.transactionSync(() => {
				for (let index = start; index < Math.min(count, start + batch); index++) {
					const event = make(index);
					const ms = newestMs - ((count - 1 - index) * stepMs);
					const key: TimeKey = [ms, event.id];
					// The fields one by one: spreading the event costs more than the rest of the loop.
					const stored: NewEvent = {id: event.id, event: event.event, chatId: event.chatId, body: event.body, receivedAt: new Date(ms).toISOString(), headers, status: event.status === 'logged' ? 'logged' : 'received'};
					// A finished failure with its state fields; the others as accepted (record-codec.ts).
					const tuple = event.status === 'failed'
						? toTuple({...stored, status: 'failed', updatedAt: stored.receivedAt, error: 'the platform answered 503', attempts: 1, generation: 0}, key)
						: newEventTuple(stored, ms);

					stores.events.putSync(key, tuple, put);
					stores.seen.putSync(event.id, ms, put);
				}
			});
		}

		await stores.marks.put('unindexed-from', newestMs);
	} finally {
		await stores.root.close();
	}
}
