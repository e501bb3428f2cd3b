/**
 * The owner lock: one `serve` per journal. The owner record sits in the journal itself and is
 * replaced in one synchronous write transaction (LMDB serialises writers across processes) only
 * when it still is the record found dead, so two serves starting at once cannot both win. Whether
 * the recorded owner lives is asked of its socket (liveness.ts), which works across PID namespaces
 * and survives pid reuse.
 */
import {journalError} from '../errors.js';
import {holderAlive, type Holder} from './liveness.js';
import type {Stores} from '../store.js';

const ownerKey = 'owner';

/** Conditional replacements tried before giving up on a record that keeps changing. */
const tries = 3;

/** Takes the lock or throws `journal-locked` naming the live owner. */
export async function takeOwnership(stores: Stores, mine: Holder, dataDirectory: string): Promise<void> {
	for (let attempt = 0; attempt < tries; attempt++) {
		const current = stores.meta.get(ownerKey);
		if (current && current.token !== mine.token && await holderAlive(current, stores.directory)) {
			throw journalError('journal-locked', {directory: dataDirectory, pid: current.pid, ...(current.command === undefined ? {} : {command: current.command})}, `the journal in ${dataDirectory} is in use by process ${current.pid}`);
		}

		const taken = stores.root.transactionSync(() => {
			if (stores.meta.get(ownerKey)?.token !== current?.token) {
				return false;
			}

			void stores.meta.put(ownerKey, mine);
			return true;
		});
		if (taken) {
			return;
		}
	}

	const other = stores.meta.get(ownerKey);
	throw journalError('journal-locked', {directory: dataDirectory, pid: other?.pid ?? 0}, `the journal in ${dataDirectory} is in use by process ${other?.pid ?? 0}`);
}

/** Releases the lock if this process still holds it. */
export async function releaseOwnership(stores: Stores, mine: Holder): Promise<void> {
	if (stores.meta.get(ownerKey)?.token === mine.token) {
		await stores.meta.remove(ownerKey);
	}
}
