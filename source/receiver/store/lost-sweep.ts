/**
 * With Redis, an event accepted by this replica may end elsewhere: answered by another replica, or
 * lost with the Redis data (FLUSHALL, a restart of a Redis without persistence) before any replica
 * ran it. Neither ends a job here, so without this sweep it would stay counted in `processing` for
 * good. Every `intervalMs` the sweep asks the store about the events accepted here that are not
 * running here (a bounded batch, oldest first) and stops counting those that ended elsewhere, or
 * logs them `lost` when the store no longer knows their id.
 */
import type {EventBackend} from './backend.js';
import type {StageEvent} from '../events.js';
import type {OpenJobs} from './open-jobs.js';

/** Events asked about per sweep. */
const batch = 200;

const ended = new Set(['answered', 'failed', 'logged', 'ignored']);

export type LostSweepOptions = {
	backend: Pick<EventBackend, 'get' | 'holds'>;
	open: OpenJobs;
	emit(event: StageEvent): void;
	now(): string;
};

/** One sweep; resolves once every event of the batch was looked at (a store that fails ends it early). */
export async function sweepOpenJobs(options: LostSweepOptions): Promise<void> {
	const {backend, open} = options;
	for (const {eventId, chatId} of open.waiting(batch)) {
		let event: Awaited<ReturnType<typeof backend.get>>;
		let held = true;
		try {
			event = await backend.get(eventId);
			if (event === undefined) {
				held = await backend.holds?.(eventId) ?? true;
			}
		} catch {
			// Redis is down: the status shows it; the next sweep tries again.
			return;
		}

		if (event === undefined) {
			// Gone. Its id still held: it ended and the count bound removed it. Else lost with the data.
			if (open.drop(eventId)) {
				options.emit(held
					? {type: 'stage', at: options.now(), eventId, chatId: chatId ?? '', stage: 'elsewhere'}
					: {type: 'stage', at: options.now(), eventId, chatId: chatId ?? '', stage: 'lost'});
			}
		} else if (ended.has(event.status) && open.drop(eventId)) {
			options.emit({type: 'stage', at: options.now(), eventId, chatId: chatId ?? event.chatId ?? '', stage: 'elsewhere', finalStatus: event.status});
		}
	}
}

/** Sweeps every `intervalMs` (one at a time) until the returned stop is called. */
export function startLostSweep(options: LostSweepOptions & {intervalMs: number}): () => void {
	let running = false;
	const timer = setInterval(() => {
		if (running) {
			return;
		}

		running = true;
		void sweepOpenJobs(options).finally(() => {
			running = false;
		});
	}, options.intervalMs);
	timer.unref();
	return () => {
		clearInterval(timer);
	};
}
