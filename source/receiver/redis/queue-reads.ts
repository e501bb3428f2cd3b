/** The read side of the Redis queue: list, get, near ids, replay (re-queue), and its figures. */
import type {Job, JobState as BullState, Queue} from 'bullmq';
import type {BackendStats, Backlog, ListFilter, NewEvent, ReplayResult, StoredEvent, WaitingSummary} from '../store/backend.js';
import {type JobState, jobIdOf, progressOf, toStoredEvent} from './mapping.js';
import {matchesFilter} from '../store/list-filter.js';
import {nearIds} from '../intake/near.js';

export type QueueReads = {
	list(filter: ListFilter): Promise<StoredEvent[]>;
	get(id: string): Promise<StoredEvent | undefined>;
	near(id: string): Promise<string[]>;
	replay(id: string): Promise<ReplayResult>;
};

export type QueueFigures = {
	stats(): Promise<BackendStats>;
	backlog(): Promise<Backlog>;
	waiting(): Promise<WaitingSummary>;
};

/** The states `list` reads, each with the state it maps from. */
const listedStates: BullState[] = ['active', 'waiting', 'prioritized', 'delayed', 'completed', 'failed'];

async function jobsIn(queue: Queue<NewEvent>, state: BullState): Promise<Array<{job: Job<NewEvent>; state: JobState}>> {
	const jobs: Array<Job<NewEvent> | undefined> = await queue.getJobs([state], 0, -1);
	// A job removed between reading the range and the job itself comes back empty.
	return jobs.filter((job): job is Job<NewEvent> => job?.data !== undefined).map(job => ({job, state}));
}

async function allJobs(queue: Queue<NewEvent>): Promise<Array<{job: Job<NewEvent>; state: JobState}>> {
	const groups = await Promise.all(listedStates.map(async state => jobsIn(queue, state)));
	// A job moving between states while we read may show up twice: keep its first sighting.
	const seen = new Set<string>();
	return groups.flat().filter(({job}) => {
		const id = job.id ?? '';
		if (seen.has(id)) {
			return false;
		}

		seen.add(id);
		return true;
	});
}

/** The queue's events: listed, one by id, the ids near a mistyped one, and a replay. */
export function queueReads(queue: Queue<NewEvent>): QueueReads {
	async function near(id: string): Promise<string[]> {
		return nearIds(id, (await allJobs(queue)).map(({job}) => job.data.id));
	}

	return {
		async list(filter) {
			const events = (await allJobs(queue))
				.map(({job, state}) => toStoredEvent(job, state))
				.filter(event => matchesFilter(event, filter))
				.sort((a, b) => b.receivedAt.localeCompare(a.receivedAt) || b.id.localeCompare(a.id));
			return filter.limit === undefined ? events : events.slice(0, filter.limit);
		},
		async get(id) {
			const job = await queue.getJob(jobIdOf(id));
			if (job?.data === undefined) {
				return undefined;
			}

			return toStoredEvent(job, await job.getState());
		},
		near,
		async replay(id) {
			const job = await queue.getJob(jobIdOf(id));
			if (job?.data === undefined) {
				return {outcome: 'unknown', near: await near(id)};
			}

			const state = await job.getState();
			if (state === 'active') {
				return {outcome: 'busy', holder: job.processedBy ?? 'another replica'};
			}

			if (state === 'completed' || state === 'failed') {
				// A new attempt starts with no steps: the answer is written again from the start.
				await job.updateProgress(progressOf([]));
				await job.retry(state);
			}

			return {outcome: 'queued'};
		},
	};
}

/** The queue's figures: its counts (stats), the unfinished events (backlog) and the waiting ones. */
export function queueFigures(queue: Queue<NewEvent>): QueueFigures {
	return {
		async stats() {
			const counts = await queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active', 'completed', 'failed');
			const count = (name: string) => counts[name] ?? 0;
			const waiting = count('waiting') + count('prioritized') + count('delayed');
			const queueFigures = {waiting, active: count('active'), completed: count('completed'), failed: count('failed')};
			return {count: waiting + queueFigures.active + queueFigures.completed + queueFigures.failed, queue: queueFigures};
		},
		async backlog() {
			const counts = await queue.getJobCounts('waiting', 'prioritized', 'delayed', 'active');
			const count = Object.values(counts).reduce((sum, value) => sum + value, 0);
			// The waiting list's oldest job is at its end.
			const [oldest] = await queue.getJobs(['waiting'], -1, -1);
			return oldest?.data === undefined ? {count} : {count, oldestReceivedAt: oldest.data.receivedAt};
		},
		async waiting() {
			// Delayed jobs are the waiting events (moved there with their schedule); the set is ordered by due time.
			const count = await queue.getDelayedCount();
			const [first] = await queue.getJobs(['delayed'], 0, 0, true);
			const next = first?.data === undefined ? undefined : toStoredEvent(first, 'delayed').nextAttemptAt;
			return next === undefined ? {count} : {count, nextAttemptAt: next};
		},
	};
}
