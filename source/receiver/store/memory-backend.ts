/**
 * The memory backend: verified events held in this process only (tests, benchmarks, `upload
 * --local`). Exactly-once ids in an `EventIdStore` (24 h / 100 000 ids by default), jobs on a
 * bounded queue: past `maxPending` waiting jobs `accept` throws busy and the receiver answers 503,
 * which the platform retries. Nothing survives the process.
 */
import {formatSeconds} from '../../format/duration.js';
import {defaultAbortGraceMs} from '../drain.js';
import {
	BackendUnavailableError,
	type AcceptResult,
	type EventBackend,
	type JobHandler,
	type JobResult,
	type NewEvent,
	type ReplayResult,
	type StoredEvent,
} from './backend.js';
import {endAttempt, runAttempt} from '../answer/attempt.js';
import {EventIdStore, type EventIdStoreOptions} from '../intake/dedupe.js';
import {matchesFilter} from './list-filter.js';
import {nearIds} from '../intake/near.js';
import {JobQueue} from './queue.js';

/** Raised into jobs still open at the drain deadline. */
export class DrainTimeoutError extends Error {
	override name = 'DrainTimeoutError';

	constructor(timeoutMs: number) {
		super(`the receiver shut down and the job did not finish within the ${formatSeconds(timeoutMs)} drain time`);
	}
}

export type MemoryBackendOptions = {
	/** Jobs that may wait beyond those running. Default 10 000. */
	maxPending?: number;
	/** Exactly-once store options, or a store to share. Default: 24 h / 100 000 ids. */
	dedupe?: EventIdStoreOptions | EventIdStore;
	/** After the drain deadline, how long cut-off jobs get for their failure path, ms. Default 31 000. */
	abortGraceMs?: number;
};

/** One attempt of `stored` through `run`, updating its state. */
async function attempt(stored: StoredEvent, run: JobHandler, signal: AbortSignal): Promise<JobResult> {
	stored.status = 'processing';
	delete stored.nextAttemptAt;
	stored.attempts++;
	stored.updatedAt = new Date().toISOString();
	const {result, end} = await runAttempt(run, {
		event: stored,
		signal,
		async recordStep(step) {
			stored.steps.push(step);
			return Promise.resolve();
		},
	});
	endAttempt(stored, end);
	if (result.status === 'waiting') {
		stored.nextAttemptAt = result.nextAttemptAt;
	}

	return result;
}

/** What the memory backend reads from the events it holds: lists, one event, near ids, counts. */
function memoryReads(events: Map<string, StoredEvent>): Pick<EventBackend, 'list' | 'get' | 'near' | 'withPrefix' | 'stats' | 'waiting' | 'backlog'> {
	return {
	async list(filter) {
		const found = [...events.values()].filter(event => matchesFilter(event, filter)).reverse();
		return Promise.resolve(filter.limit === undefined ? found : found.slice(0, filter.limit));
	},
	async get(id) {
		return Promise.resolve(events.get(id));
	},
	async near(id) {
		return Promise.resolve(nearIds(id, events.keys()));
	},
	async withPrefix(prefix, limit) {
		return Promise.resolve([...events.keys()].filter(id => id.startsWith(prefix)).sort().slice(0, limit));
	},
	async stats() {
		return Promise.resolve({count: events.size});
	},
	async waiting() {
		let count = 0;
		let next: string | undefined;
		for (const event of events.values()) {
			if (event.status === 'waiting' && event.nextAttemptAt !== undefined) {
				count++;
				next = next === undefined || event.nextAttemptAt < next ? event.nextAttemptAt : next;
			}
		}

		return Promise.resolve(next === undefined ? {count} : {count, nextAttemptAt: next});
	},
	async backlog() {
		let oldest: string | undefined;
		let count = 0;
		for (const event of events.values()) {
			if (event.status === 'received' || event.status === 'processing' || event.status === 'waiting') {
				count++;
				oldest = oldest === undefined || event.receivedAt < oldest ? event.receivedAt : oldest;
			}
		}

		return Promise.resolve(oldest === undefined ? {count} : {count, oldestReceivedAt: oldest});
	},
	};
}

/** Queues each event's attempts, and sets the timers of waiting events for their next one; `stop` clears the timers. */
class Attempts {
	handler: JobHandler | undefined;
	private readonly timers = new Set<NodeJS.Timeout>();
	private stopped = false;

	constructor(private readonly queue: JobQueue) {}

	/** False when the queue is full. */
	enqueue(stored: StoredEvent): boolean {
		return this.queue.push(async signal => {
			if (this.handler) {
				const result = await attempt(stored, this.handler, signal);
				if (result.status === 'waiting') {
					this.later(stored, Date.parse(result.nextAttemptAt));
				}
			}
		});
	}

	later(stored: StoredEvent, atMs: number): void {
		if (this.stopped) {
			return;
		}

		const timer = setTimeout(() => {
			this.timers.delete(timer);
			if (!this.stopped && stored.status === 'waiting' && !this.enqueue(stored)) {
				// The queue is full: try again at the next wait.
				this.later(stored, Date.now() + 1000);
			}
		}, Math.max(0, atMs - Date.now()));
		timer.unref();
		this.timers.add(timer);
	}

	stop(): void {
		this.stopped = true;
		for (const timer of this.timers) {
			clearTimeout(timer);
		}
	}
}

/** Holds `event` as the newest, dropping the oldest beyond `max`. */
function keepNewest(events: Map<string, StoredEvent>, event: StoredEvent, max: number): void {
	events.delete(event.id);
	events.set(event.id, event);
	while (events.size > max) {
		const oldest = events.keys().next();
		if (oldest.done) {
			break;
		}

		events.delete(oldest.value);
	}
}

export function createMemoryBackend(options: MemoryBackendOptions = {}): EventBackend {
	const ids = options.dedupe instanceof EventIdStore ? options.dedupe : new EventIdStore(options.dedupe);
	const queue = new JobQueue(options.maxPending ?? 10_000);
	const events = new Map<string, StoredEvent>();

	const attempts = new Attempts(queue);

	return {
		kind: 'memory',
		async accept(event: NewEvent): Promise<AcceptResult> {
			if (!ids.add(event.id)) {
				return Promise.resolve('duplicate');
			}

			const stored: StoredEvent = {...event, updatedAt: event.receivedAt, steps: [], attempts: 0};
			if (event.status === 'received') {
				const queued = attempts.enqueue(stored);
				if (!queued) {
					// Not taken: the platform's redelivery must be accepted later.
					ids.delete(event.id);
					throw new BackendUnavailableError('backend-busy', `the job queue is full (${queue.size} jobs)`);
				}
			}

			keepNewest(events, stored, ids.maxEntries);
			return Promise.resolve('stored');
		},
		async start(jobHandler, {concurrency}) {
			attempts.handler = jobHandler;
			queue.start(concurrency);
			return Promise.resolve();
		},
		async stop(drainMs) {
			attempts.stop();

			const idle = await queue.whenIdle(drainMs);
			if (idle) {
				return {cutOff: 0};
			}

			const cutOff = queue.size;
			await queue.abortAll(new DrainTimeoutError(drainMs), options.abortGraceMs ?? defaultAbortGraceMs);
			return {cutOff};
		},
		active: () => queue.active,
		...memoryReads(events),
		async replay(id, run): Promise<ReplayResult> {
			const stored = events.get(id);
			if (!stored) {
				return {outcome: 'unknown', near: nearIds(id, events.keys())};
			}

			if (stored.status === 'processing') {
				return {outcome: 'busy', holder: `this process (pid ${process.pid})`};
			}

			stored.steps = [];
			const result = await attempt(stored, run, new AbortController().signal);
			return {outcome: 'done', result};
		},
		async wake() {
			for (const event of events.values()) {
				if (event.status === 'waiting') {
					attempts.later(event, 0);
				}
			}

			return Promise.resolve();
		},
		async close() {
			return Promise.resolve();
		},
	};
}
