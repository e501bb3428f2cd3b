/**
 * Admission on Redis: the exactly-once check, the cluster-wide `--max-backlog` bound and the job
 * itself stored in one script, one round trip per acknowledgement. Replicas admitting at the same
 * instant cannot pass the bound (the count and the store are one step) and two replicas given one
 * id store one job (the second finds it held).
 *
 * The job is written as BullMQ's add writes a waiting job (`name`, `data`, `opts`, `timestamp`,
 * `delay`, `priority`, `deid`, pushed on `wait` with the workers' marker set), so BullMQ's workers
 * take it and `events list`, `show` and `replay` read it as any other; the id's 24 h hold is the
 * de-duplication key BullMQ's add would set. Left out of BullMQ's add: its job counter (ids are the
 * events' own) and the `added`/`waiting` entries of its event stream, which nothing here reads.
 * test/receiver/redis/admission.test.ts compares the job with one BullMQ's add stores.
 *
 * The count is what the queue holds unfinished: waiting, running and delayed (events waiting for
 * their next attempt). The receiver never pauses the queue nor gives priorities, so BullMQ's
 * `paused` and `prioritized` stay empty.
 */
import type {Queue} from 'bullmq';
import type {RedisClient} from './connection.js';
import type {NewEvent} from '../store/backend.js';

/** What the script decided: the id is already held, the bound is reached, or the event is stored. */
export type Admission = 'duplicate' | 'full' | 'stored';

const outcomes: readonly Admission[] = ['duplicate', 'stored', 'full'];

// KEYS: 1 job hash, 2 the id's hold (BullMQ's de-duplication key), 3 the hold of releases before it
// (`id:<job id>`, a key of its own, expiring within 24 h of the upgrade), 4 wait, 5 active,
// 6 delayed, 7 the workers' marker.
// ARGV: 1 limit (-1: no bound), 2 job id, 3 hold ms, 4 name, 5 data, 6 opts, 7 timestamp (ms).
// Returns an index into `outcomes`.
const admitScript = `
if redis.call('EXISTS', KEYS[1], KEYS[2], KEYS[3]) > 0 then return 0 end
local limit = tonumber(ARGV[1])
if limit >= 0 and redis.call('LLEN', KEYS[4]) + redis.call('LLEN', KEYS[5]) + redis.call('ZCARD', KEYS[6]) >= limit then return 2 end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
redis.call('HSET', KEYS[1], 'name', ARGV[4], 'data', ARGV[5], 'opts', ARGV[6], 'timestamp', ARGV[7], 'delay', '0', 'priority', '0', 'deid', ARGV[2])
redis.call('LPUSH', KEYS[4], ARGV[2])
redis.call('ZADD', KEYS[7], '0', '0')
return 1
`;

const commandName = 'platformTuiAdmit';

type Scripted = {[commandName]: (...keysAndArgs: string[]) => Promise<number>};

export type Admitter = {
	/**
	 * Stores the event as a waiting job unless its id is held, or (with `limit`) the cluster's
	 * unfinished events reached it. `opts`: the job options as BullMQ's add stores them.
	 */
	admit(jobId: string, event: NewEvent, opts: Record<string, unknown>, limit: number | undefined): Promise<Admission>;
	/** Whether the id is held: by its job, or by its hold. */
	holds(jobId: string): Promise<boolean>;
};

/**
 * The keys that hold a job id, in the order the scripts check them: its job, its 24 h hold
 * (BullMQ's de-duplication key) and the hold of releases before it (`id:<job id>`).
 */
export function idHolds(queue: Pick<Queue, 'toKey'>, jobId: string): [string, string, string] {
	return [queue.toKey(jobId), queue.toKey(`de:${jobId}`), queue.toKey(`id:${jobId}`)];
}

export function admitter(client: RedisClient, queue: Queue, holdIdMs: number): Admitter {
	if (!(commandName in client)) {
		// EVALSHA with the script loaded on first use (ioredis keeps its digest per connection).
		client.defineCommand(commandName, {numberOfKeys: 7, lua: admitScript});
	}

	const scripted = client as unknown as Scripted;
	const [wait, active, delayed, marker] = ['wait', 'active', 'delayed', 'marker'].map(name => queue.toKey(name));
	return {
		async admit(jobId, event, opts, limit) {
			const index = await scripted[commandName](
				...idHolds(queue, jobId), wait ?? '', active ?? '', delayed ?? '', marker ?? '',
				String(limit ?? -1), jobId, String(holdIdMs), event.event, JSON.stringify(event), JSON.stringify(opts), String(Date.now()),
			);
			return outcomes[index] ?? 'full';
		},
		async holds(jobId) {
			return await client.exists(...idHolds(queue, jobId)) > 0;
		},
	};
}
