/**
 * Per-event claims: two processes never process one event at once. A claim is a conditional
 * write (no claim yet, or the version read when the holder was found dead), so only one process
 * wins it; the finish of an attempt removes it in the same commit as the event's final state.
 */
import {holderAlive, type Holder} from '../open/liveness.js';
import type {Stores} from '../store.js';

export type ClaimResult = {ok: true} | {ok: false; holder: Holder};

/** Conditional writes tried before a claim counts as taken by someone else. */
const claimTries = 3;

export async function claimEvent(stores: Stores, id: string, mine: Holder): Promise<ClaimResult> {
	const {claims} = stores;
	for (let attempt = 0; attempt < claimTries; attempt++) {
		const entry = claims.getEntry(id);
		if (!entry) {
			if (await claims.ifNoExists(id, () => {
				// Its failure is the conditional write's, awaited here.
				claims.put(id, mine, 1).catch(() => undefined);
			})) {
				return {ok: true};
			}

			continue;
		}

		const holder = entry.value;
		if (holder.pid === mine.pid && holder.token === mine.token) {
			return {ok: true};
		}

		if (await holderAlive(holder, stores.directory)) {
			return {ok: false, holder};
		}

		// The holder died: take the claim over, unless another process did first.
		const version = entry.version ?? 0;
		if (await claims.ifVersion(id, version, () => {
			claims.put(id, mine, version + 1).catch(() => undefined);
		})) {
			return {ok: true};
		}
	}

	const holder = claims.get(id);
	return holder ? {ok: false, holder} : {ok: false, holder: mine};
}
