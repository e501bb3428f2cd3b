/**
 * An edited copy of a stored event (`events replay <id> --edit`/`--set`, the inspector's `e`):
 * stored as a new event (new id, the original named in its `x-platform-tui-edited-from` header)
 * by any process, with its exactly-once entry in the same commit, since only the serve that owns
 * the journal indexes ids in batches (id-index.ts). It is stored `received` but not queued: the
 * process that stores it replays it at once (a replay queues it while it runs).
 */
import type {NewEvent} from '../../store/backend.js';
import {newEventTuple} from './record-codec.js';
import type {Stores} from '../store.js';
import type {TimeKey} from './shapes.js';

/** The header naming the event an edited one was made from. */
export const editedFromHeader = 'x-platform-tui-edited-from';

export async function storeEdited(stores: Stores, event: NewEvent): Promise<void> {
	const parsed = Date.parse(event.receivedAt);
	const key: TimeKey = [Number.isNaN(parsed) ? Date.now() : parsed, event.id];
	await stores.root.transaction(() => {
		stores.events.put(key, newEventTuple(event, key[0])).catch(() => undefined);
		stores.seen.put(event.id, key[0]).catch(() => undefined);
	});
}
