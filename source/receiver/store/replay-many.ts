/**
 * Bulk replay (`events replay` with filters or several ids): each event processed again at most
 * once, `concurrency` at a time, each outcome reported as it ends. An event another process holds
 * is skipped and counted, never waited for.
 */
import type {EventBackend, JobHandler} from './backend.js';

export type ReplayOutcome = 'answered' | 'failed' | 'queued' | 'skipped' | 'unknown';

export type ReplayItem = {
	id: string;
	outcome: ReplayOutcome;
	/** Why it failed, or who holds a skipped one. */
	error?: string;
	holder?: string;
	durationMs?: number;
};

export type ReplaySummary = Record<ReplayOutcome, number> & {total: number};

/** Ids in their first order, each once. */
export function uniqueIds(ids: readonly string[]): string[] {
	return [...new Set(ids)];
}

export async function replayMany(backend: EventBackend, ids: readonly string[], handler: JobHandler, options: {concurrency: number; onItem?: (item: ReplayItem, done: number, total: number) => void; signal?: AbortSignal}): Promise<ReplaySummary> {
	const queue = uniqueIds(ids);
	const total = queue.length;
	const summary: ReplaySummary = {total, answered: 0, failed: 0, queued: 0, skipped: 0, unknown: 0};
	let next = 0;
	let done = 0;
	const one = async (id: string): Promise<ReplayItem> => {
		try {
			const result = await backend.replay(id, handler);
			switch (result.outcome) {
				case 'done': {
					const after = await backend.get(id);
					// A replay that ends waiting is left for serve to try again: queued, as with Redis.
					const item: ReplayItem = {id, outcome: result.result.status === 'waiting' ? 'queued' : result.result.status};
					if (result.result.error !== undefined) {
						item.error = result.result.error;
					}

					if (after?.durationMs !== undefined) {
						item.durationMs = after.durationMs;
					}

					return item;
				}

				case 'busy': {
					return {id, outcome: 'skipped', holder: result.holder};
				}

				case 'queued': {
					return {id, outcome: 'queued'};
				}

				default: {
					return {id, outcome: 'unknown', error: 'no such event'};
				}
			}
		} catch (error) {
			return {id, outcome: 'failed', error: error instanceof Error ? error.message : String(error)};
		}
	};

	const worker = async () => {
		while (next < queue.length && !options.signal?.aborted) {
			const id = queue[next++] ?? '';
			const item = await one(id);
			summary[item.outcome]++;
			done++;
			options.onItem?.(item, done, total);
		}
	};

	await Promise.all(Array.from({length: Math.max(1, Math.min(options.concurrency, total))}, async () => worker()));
	return summary;
}
