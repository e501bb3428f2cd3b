/**
 * The owner lock: one `serve` per journal. The owner record sits in the journal itself, written
 * in one synchronous write transaction (LMDB serialises writers across processes), so two serves
 * starting at once cannot both win. A record whose process is gone is taken over.
 */
import {journalError} from './errors.js';
import {holderAlive, type Holder} from './liveness.js';
import type {Stores} from './store.js';

const ownerKey = 'owner';

/** Takes the lock or throws `journal-locked` naming the live owner. */
export function takeOwnership(stores: Stores, mine: Holder, dataDirectory: string): void {
	const other = stores.root.transactionSync(() => {
		const current = stores.meta.get(ownerKey);
		if (current && current.token !== mine.token && holderAlive(current)) {
			return current;
		}

		void stores.meta.put(ownerKey, mine);
		return undefined;
	});
	if (other) {
		throw journalError('journal-locked', {directory: dataDirectory, pid: other.pid}, `the journal in ${dataDirectory} is in use by process ${other.pid}`);
	}
}

/** Releases the lock if this process still holds it. */
export async function releaseOwnership(stores: Stores, mine: Holder): Promise<void> {
	if (stores.meta.get(ownerKey)?.token === mine.token) {
		await stores.meta.remove(ownerKey);
	}
}

/** The live owner, if any (for messages). */
export function currentOwner(stores: Stores): Holder | undefined {
	const current = stores.meta.get(ownerKey);
	return current && holderAlive(current) ? current : undefined;
}
