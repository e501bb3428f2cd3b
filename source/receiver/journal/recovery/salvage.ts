/**
 * Reads every record a damaged journal still yields, each read in a child process (reader.ts), so
 * a signal or an assertion in LMDB ends only that child:
 *
 * 1. the events, oldest first, each with its steps, until the end or until the child dies;
 * 2. if it died, the events newest first, down to the last one the first pass got: the damaged
 *    region lies between the two;
 * 3. the exactly-once index (`seen`: id → received time), forwards and, if that dies, backwards;
 * 4. if an events pass died, the file's pages are read directly (page-scan.ts, by the caller,
 *    through `elsewhere`): it reads every page the file still has, so a lookup by key could find
 *    nothing more, and each one into a missing page would cost a child its life. An id of the index
 *    whose event neither found is unreadable (or was pruned earlier: the index outlives the count
 *    bound; the two cannot be told apart without its page).
 */
import type {StepRecord} from '../../store/backend.js';
import {readInChild, type ReaderMessage, type ReaderTask} from '../reader.js';
import {JournalError} from '../errors.js';
import {fromStored, type StoredRecord} from '../records/record-codec.js';
import type {EventRecord, StepKey, TimeKey} from '../records/shapes.js';

export type SalvagedEvent = {key: TimeKey; record: EventRecord; steps?: Array<[StepKey, StepRecord]>};

export type Salvage = {
	events: Map<string, SalvagedEvent>;
	seen: Map<string, number>;
	/** Ids whose event could not be read (its lookup ended the child). */
	unreadable: string[];
	/** Events whose record was read but is damaged (it no longer decodes or fails its checksum), by id. */
	damaged: Map<string, {key: TimeKey; reason: string}>;
	/** How each reading child that did not finish ended. */
	failures: string[];
	/** Every pass read to its end: nothing was lost to damage that LMDB noticed. */
	complete: boolean;
};

const keyText = (key: TimeKey) => `${key[0]}\u0000${key[1]}`;

/** An event as read, or, when its record fails its checksum, its id among the damaged. */
function takeEvent(found: Salvage, key: TimeKey, value: StoredRecord): void {
	try {
		found.events.set(keyText(key), {key, record: fromStored(value, key)});
	} catch (error) {
		if (!(error instanceof JournalError) || error.code !== 'journal-record-damaged') {
			throw error;
		}

		found.damaged.set(key[1], {key, reason: (error as JournalError<'journal-record-damaged'>).data.reason});
	}
}

/** `elsewhere`: called once when an events pass died (step 4); the ids whose events it found. */
export async function salvage(folder: string, elsewhere: () => Set<string>): Promise<Salvage> {
	const found: Salvage = {events: new Map(), seen: new Map(), unreadable: [], damaged: new Map(), failures: [], complete: true};
	let last: TimeKey | undefined;
	const take = (message: ReaderMessage) => {
		if (message.t === 'event') {
			last = message.key;
			if (!found.events.has(keyText(message.key))) {
				takeEvent(found, message.key, message.value);
			}
		} else if (message.t === 'damaged') {
			last = message.key;
			found.damaged.set(message.key[1], {key: message.key, reason: `it no longer decodes (${message.message})`});
		} else if (message.t === 'steps') {
			const event = last && last[1] === message.id ? found.events.get(keyText(last)) : undefined;
			if (event) {
				event.steps = message.entries;
			}
		} else if (message.t === 'seen') {
			for (const [id, ms] of message.entries) {
				found.seen.set(id, ms);
			}
		}
	};

	const run = async (task: ReaderTask) => {
		const end = await readInChild(folder, task, take);
		if (!end.complete) {
			found.complete = false;
			found.failures.push(end.failure ?? 'a reading child failed');
		}

		return end.complete;
	};

	const eventsWhole = await run({t: 'events', reverse: false});
	if (!eventsWhole) {
		const forwardLast = last;
		await run({t: 'events', reverse: true, ...(forwardLast ? {after: forwardLast} : {})});
	}

	if (!await run({t: 'seen', reverse: false})) {
		await run({t: 'seen', reverse: true});
	}

	if (!eventsWhole) {
		const known = elsewhere();
		const read = new Set([...found.events.values()].map(event => event.record.id));
		found.unreadable = [...found.seen.keys()].filter(id => !known.has(id) && !read.has(id) && !found.damaged.has(id));
	}

	return found;
}
