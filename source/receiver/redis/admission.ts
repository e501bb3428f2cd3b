/**
 * Admission on Redis: the exactly-once check and the cluster-wide `--max-backlog` bound in one
 * script, so replicas admitting at the same instant cannot pass the bound between reading the
 * count and storing the job.
 *
 * The count is what the queue holds unfinished (waiting, paused, prioritized, delayed, active) plus
 * the slots reserved by admissions whose job is being added. A reservation is a member of a sorted
 * set scored by Redis's own clock. The script drops a reservation whose job is stored before it
 * counts (the job counts itself), so no event counts twice; one left by a replica that died before
 * storing its job is dropped `holdMs` later, so its slot comes back, and a job a dead replica was
 * running stays counted until another replica takes it over and finishes it. The id's 24 h hold is
 * BullMQ's de-duplication key, set by its add in the same script that stores the job: an
 * acknowledgement costs this script and the add, two round trips.
 */
import type {Queue} from 'bullmq';
import type {RedisClient} from './connection.js';

/** How long a reservation holds its slot when its replica never confirms it (it died mid-accept). */
export const reservationHoldMs = 15_000;

/** What the script decided: the id is already held, the bound is reached, or the event may be added. */
export type Admission = 'duplicate' | 'full' | 'admitted';

const outcomes: readonly Admission[] = ['duplicate', 'admitted', 'full'];

// KEYS: 1 job hash, 2 the id's hold (BullMQ's de-duplication key), 3 the hold of releases before it
// (`id:<job id>`, a key of its own, expiring within 24 h of the upgrade), 4 wait, 5 paused,
// 6 active, 7 delayed, 8 prioritized, 9 reservations.
// ARGV: 1 limit (-1: no bound), 2 job id, 3 hold ms, 4 the queue's key prefix (a reservation whose
// job is stored is dropped before counting: the job counts itself). Returns an index into `outcomes`.
const admitScript = `
if redis.call('EXISTS', KEYS[1], KEYS[2], KEYS[3]) > 0 then return 0 end
local limit = tonumber(ARGV[1])
if limit < 0 then return 1 end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[9], '-inf', now - tonumber(ARGV[3]))
for _, reserved in ipairs(redis.call('ZRANGE', KEYS[9], 0, -1)) do
	if redis.call('EXISTS', ARGV[4] .. reserved) == 1 then redis.call('ZREM', KEYS[9], reserved) end
end
local count = redis.call('LLEN', KEYS[4]) + redis.call('LLEN', KEYS[5]) + redis.call('LLEN', KEYS[6])
	+ redis.call('ZCARD', KEYS[7]) + redis.call('ZCARD', KEYS[8]) + redis.call('ZCARD', KEYS[9])
if count >= limit and not redis.call('ZSCORE', KEYS[9], ARGV[2]) then return 2 end
redis.call('ZADD', KEYS[9], now, ARGV[2])
return 1
`;

const commandName = 'platformTuiAdmit';

type Scripted = {[commandName]: (...keysAndArgs: string[]) => Promise<number>};

export type Admitter = {
	/** Decides for one event; `limit` undefined: only the exactly-once check (no slot is reserved). */
	admit(jobId: string, limit: number | undefined): Promise<Admission>;
	/**
	 * The options that make BullMQ's add hold the id for `holdIdMs` in the same script that stores
	 * the job (its de-duplication key, with a TTL: kept whatever removes the job sooner).
	 */
	holdOptions(jobId: string, holdIdMs: number): {jobId: string; deduplication: {id: string; ttl: number}};
	/**
	 * The reserved slot is given back: the job is stored (it counts itself now) or was not. Not
	 * waited for: the next admission drops a reservation whose job is stored before it counts.
	 */
	release(jobId: string): void;
	/** Whether the id is held: by its job, or by its hold. */
	holds(jobId: string): Promise<boolean>;
};

export function admitter(client: RedisClient, queue: Queue, holdMs = reservationHoldMs): Admitter {
	if (!(commandName in client)) {
		// EVALSHA with the script loaded on first use (ioredis keeps its digest per connection).
		client.defineCommand(commandName, {numberOfKeys: 9, lua: admitScript});
	}

	const scripted = client as unknown as Scripted;
	const reservations = queue.toKey('admitting');
	const heldBy = (jobId: string) => [queue.toKey(jobId), queue.toKey(`de:${jobId}`), queue.toKey(`id:${jobId}`)];
	return {
		async admit(jobId, limit) {
			const keys = [...heldBy(jobId), ...['wait', 'paused', 'active', 'delayed', 'prioritized'].map(name => queue.toKey(name)), reservations];
			const index = await scripted[commandName](...keys, String(limit ?? -1), jobId, String(holdMs), queue.toKey(''));
			return outcomes[index] ?? 'full';
		},
		holdOptions: (jobId, holdIdMs) => ({jobId, deduplication: {id: jobId, ttl: holdIdMs}}),
		release(jobId) {
			client.zrem(reservations, jobId).catch(() => undefined);
		},
		async holds(jobId) {
			return await client.exists(...heldBy(jobId)) > 0;
		},
	};
}
