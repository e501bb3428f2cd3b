/**
 * Reads every record a damaged journal still yields, each read in a child process (reader.ts), so
 * a signal or an assertion in LMDB ends only that child:
 *
 * 1. the events, oldest first, each with its steps, until the end or until the child dies;
 * 2. if it died, the events newest first, down to the last one the first pass got: the damaged
 *    region lies between the two;
 * 3. the exactly-once index (`seen`: id → received time), forwards and, if that dies, backwards;
 * 4. if an events pass died, every id of the index whose event was not read yet is looked up by its
 *    key, one by one; a lookup that kills its child marks that event unreadable, and the next child
 *    goes on after it (at most `maxChildren` children).
 *
 * An id the index names but whose event is simply not there was pruned earlier (the index outlives
 * the count bound): it is no loss.
 */
import type {StepRecord} from '../backend.js';
import {readInChild, type ReaderMessage, type ReaderTask} from './reader.js';
import {fromStored} from './record-codec.js';
import type {EventRecord, StepKey, TimeKey} from './store.js';

export type SalvagedEvent = {key: TimeKey; record: EventRecord; steps?: Array<[StepKey, StepRecord]>};

export type Salvage = {
	events: Map<string, SalvagedEvent>;
	seen: Map<string, number>;
	/** Ids whose event could not be read (its lookup ended the child). */
	unreadable: string[];
	/** How each reading child that did not finish ended. */
	failures: string[];
	/** Every pass read to its end: nothing was lost to damage that LMDB noticed. */
	complete: boolean;
};

const maxChildren = 64;

const keyText = (key: TimeKey) => `${key[0]}\u0000${key[1]}`;

export async function salvage(folder: string): Promise<Salvage> {
	const found: Salvage = {events: new Map(), seen: new Map(), unreadable: [], failures: [], complete: true};
	let last: TimeKey | undefined;
	const take = (message: ReaderMessage) => {
		if (message.t === 'event') {
			last = message.key;
			if (!found.events.has(keyText(message.key))) {
				found.events.set(keyText(message.key), {key: message.key, record: fromStored(message.value)});
			}
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
		await lookUp(folder, found, take);
	}

	return found;
}

/** Step 4: the index's ids whose events were not read, looked up one by one. */
async function lookUp(folder: string, found: Salvage, take: (message: ReaderMessage) => void): Promise<void> {
	const failures = new Set<string>();
	let keys: TimeKey[] = [...found.seen].map(([id, ms]): TimeKey => [ms, id]).filter(key => !found.events.has(keyText(key)));
	for (let child = 0; keys.length > 0 && child < maxChildren; child++) {
		let trying = -1;
		const end = await readInChild(folder, {t: 'lookup', keys}, message => {
			if (message.t === 'try') {
				trying++;
			} else if (message.t === 'lost') {
				found.unreadable.push(message.key[1]);
				failures.add(message.message);
			} else {
				take(message);
			}
		});
		if (end.complete) {
			keys = [];
			break;
		}

		failures.add(end.failure ?? 'a reading child failed');
		// The key in flight when the child died is unreadable; the next child starts after it.
		const dead = keys[Math.max(0, trying)];
		if (dead && !found.events.has(keyText(dead))) {
			found.unreadable.push(dead[1]);
		}

		keys = keys.slice(Math.max(0, trying) + 1);
	}

	// Beyond the bound of children: what is left was not read.
	if (keys.length > 0 && failures.size > 0) {
		found.unreadable.push(...keys.map(key => key[1]));
	}

	found.unreadable = [...new Set(found.unreadable)];
	found.failures.push(...[...failures].map(failure => failure.startsWith('reading it') ? failure : `reading it failed: ${failure}`));
}
