/**
 * The journal backend's reads (journal.ts extends this): events listed, shown, paged and counted
 * from disk, ids near one given or starting with a prefix, and an edited copy stored, from any
 * process. Nothing here touches the queue's runner or the write path's state.
 */
import type {Backlog, BackendStats, ListFilter, NewEvent, StoredEvent} from '../store/backend.js';
import {nearIds} from '../intake/near.js';
import type {IdIndex} from './records/id-index.js';
import {storeEdited} from './records/edited.js';
import {idsWithPrefix, newestKey, readPage, type Page, type PageQuery} from './records/pages.js';
import {backlogOf, listEvents} from './records/queries.js';
import {diskBytes, readEvent, stepsOf, toStored, type Stores} from './store.js';
import type {TimeKey} from './records/shapes.js';

export class JournalReads {
	constructor(
		protected readonly stores: Stores,
		protected readonly index: IdIndex,
	) {}

	/** Resolves once every event this process acknowledged can be read (the writer's write-ahead log, journal.ts). */
	protected async caughtUp(): Promise<void> {
		// Nothing waits in a reader.
	}

	async list(filter: ListFilter): Promise<StoredEvent[]> {
		await this.caughtUp();
		return listEvents(this.stores, filter);
	}

	async get(id: string): Promise<StoredEvent | undefined> {
		await this.caughtUp();
		const found = readEvent(this.stores, this.index.locate(id));
		return found ? toStored(found.record, stepsOf(this.stores, id, found.record.generation)) : undefined;
	}

	async near(id: string): Promise<string[]> {
		await this.caughtUp();
		// Keys only: the ids are in them, no event is read.
		return nearIds(id, Array.from(this.stores.events.getKeys({}), key => key[1]));
	}

	async withPrefix(prefix: string, limit: number): Promise<string[]> {
		await this.caughtUp();
		return idsWithPrefix(this.stores, prefix, limit);
	}

	/** Stores an edited copy of an event as a new one (edited.ts), from any process. */
	async storeEdited(event: NewEvent): Promise<void> {
		return storeEdited(this.stores, event);
	}

	/** One page of events next to a key, read from disk (pages.ts): the inspector's reads. */
	readPage(query: PageQuery): Page {
		return readPage(this.stores, query);
	}

	/** The newest event's key (a follower compares it to learn of new events). */
	newestKey(): TimeKey | undefined {
		return newestKey(this.stores);
	}

	async stats(): Promise<BackendStats> {
		await this.caughtUp();
		return {count: this.stores.events.getCount(), bytes: diskBytes(this.stores.directory)};
	}

	async backlog(): Promise<Backlog> {
		await this.caughtUp();
		return backlogOf(this.stores);
	}
}
