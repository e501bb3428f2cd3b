/**
 * Admission on Redis: the exactly-once check and the cluster-wide `--max-backlog` bound in one
 * script, so replicas admitting at the same instant cannot pass the bound between reading the
 * count and storing the job.
 *
 * The count is what the queue holds unfinished (waiting, paused, prioritized, delayed, active) plus
 * the slots reserved by admissions whose job is being added. A reservation is a member of a sorted
 * set scored by Redis's own clock: it is removed once the job is stored (the job then counts
 * itself), and one left by a replica that died between the two is dropped `holdMs` later, so its
 * slot comes back. A job a dead replica was running stays counted until another replica takes it
 * over and finishes it. Between the add and the removal of its reservation an event counts twice:
 * the bound may refuse one delivery early for that instant, never admit one too many.
 */
import type {Queue} from 'bullmq';
import type {RedisClient} from './connection.js';

/** How long a reservation holds its slot when its replica never confirms it (it died mid-accept). */
export const reservationHoldMs = 15_000;

/** What the script decided: the id is already held, the bound is reached, or the event may be added. */
export type Admission = 'duplicate' | 'full' | 'admitted';

const outcomes: readonly Admission[] = ['duplicate', 'admitted', 'full'];

// KEYS: 1 job hash, 2 id key, 3 wait, 4 paused, 5 active, 6 delayed, 7 prioritized, 8 reservations.
// ARGV: 1 limit (-1: no bound), 2 job id, 3 hold ms. Returns an index into `outcomes`.
const admitScript = `
if redis.call('EXISTS', KEYS[1], KEYS[2]) > 0 then return 0 end
local limit = tonumber(ARGV[1])
if limit < 0 then return 1 end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[8], '-inf', now - tonumber(ARGV[3]))
local count = redis.call('LLEN', KEYS[3]) + redis.call('LLEN', KEYS[4]) + redis.call('LLEN', KEYS[5])
	+ redis.call('ZCARD', KEYS[6]) + redis.call('ZCARD', KEYS[7]) + redis.call('ZCARD', KEYS[8])
if count >= limit and not redis.call('ZSCORE', KEYS[8], ARGV[2]) then return 2 end
redis.call('ZADD', KEYS[8], now, ARGV[2])
return 1
`;

const commandName = 'platformTuiAdmit';

type Scripted = {[commandName]: (...keysAndArgs: string[]) => Promise<number>};

export type Admitter = {
	/** Decides for one event; `limit` undefined: only the exactly-once check. */
	admit(jobId: string, limit: number | undefined): Promise<Admission>;
	/** The job is stored: its id is held for `holdIdMs` and its reservation released, in one round trip. */
	stored(jobId: string, holdIdMs: number): Promise<void>;
	/** The job was not stored: the reservation is released now rather than when it expires. */
	abandoned(jobId: string): Promise<void>;
};

export function admitter(client: RedisClient, queue: Queue, holdMs = reservationHoldMs): Admitter {
	if (!(commandName in client)) {
		// EVALSHA with the script loaded on first use (ioredis keeps its digest per connection).
		client.defineCommand(commandName, {numberOfKeys: 8, lua: admitScript});
	}

	const scripted = client as unknown as Scripted;
	const reservations = queue.toKey('admitting');
	const idKey = (jobId: string) => queue.toKey(`id:${jobId}`);
	return {
		async admit(jobId, limit) {
			const keys = [queue.toKey(jobId), idKey(jobId), ...['wait', 'paused', 'active', 'delayed', 'prioritized'].map(name => queue.toKey(name)), reservations];
			const index = await scripted[commandName](...keys, String(limit ?? -1), jobId, String(holdMs));
			return outcomes[index] ?? 'full';
		},
		async stored(jobId, holdIdMs) {
			const replies = await client.multi().set(idKey(jobId), '1', 'PX', holdIdMs).zrem(reservations, jobId).exec();
			const failed = replies?.find(([error]) => error !== null)?.[0];
			if (failed) {
				throw failed;
			}
		},
		async abandoned(jobId) {
			await client.zrem(reservations, jobId).catch(() => undefined);
		},
	};
}
