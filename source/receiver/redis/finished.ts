/**
 * A job finished in one script: the outcome, the steps not yet written and the move from `active`
 * to `completed` together, the lock checked and let go, the completed set kept within the queue's
 * bounds. BullMQ's own move to completed (its `moveToFinished`) costs 20 Redis commands, among them
 * its event stream, parent and de-duplication bookkeeping the receiver does not use; this costs 9.
 * The job hash ends as BullMQ's leaves it (`returnvalue`, `finishedOn`, `atm`), so `events list`,
 * `show` and `replay` read it as any other.
 *
 * The completed set is kept within bounds by age and count as BullMQ's `removeOnComplete` does: the
 * same Lua (`trimFinishedLua`) serves events recorded only (record.ts).
 */
import type {Job} from 'bullmq';
import type {RedisClient} from './connection.js';

/**
 * Lua: `trimFinished(set, now, ageSeconds, count, prefix, holdMs)` removes from the finished set
 * (and their job keys) the jobs older than `ageSeconds` and the oldest beyond `count`. A job holds
 * its id while it is kept; one removed sooner than `holdMs` after it finished leaves its id held by
 * a key of its own (`de:<id>`, as BullMQ's de-duplication key) for the rest of that time, so the
 * count bound never frees an id inside the exactly-once window. Holds already there (an event to
 * answer has one from its admission) stay as they are.
 *
 * The scripts hand Redis numbers as strings (`'0'`, `string.format('%d', …)`): Redis 7.0 turns a
 * Lua number argument into text with `printf("%.17g")`, about a tenth of the recording script's
 * time in redis-server when every number went that way.
 */
export const trimFinishedLua = `
-- Removes the jobs of scored (ids and their finish times, as a range read WITHSCORES gives them),
-- each id held for what is left of its window; returns the ids.
local function removeJobs(prefix, scored, now, holdMs)
	local ids = {}
	for i = 1, #scored, 2 do
		local id = scored[i]
		local left = tonumber(scored[i + 1]) + holdMs - now
		if left > 0 then
			redis.call('SET', prefix .. 'de:' .. id, id, 'PX', string.format('%d', left), 'NX')
		end
		local key = prefix .. id
		redis.call('DEL', key, key .. ':logs', key .. ':dependencies', key .. ':processed', key .. ':failed', key .. ':unsuccessful')
		ids[#ids + 1] = id
	end
	return ids
end
local function trimFinished(set, now, ageSeconds, count, prefix, holdMs)
	local old = redis.call('ZREVRANGEBYSCORE', set, string.format('%d', now - ageSeconds * 1000), '-inf', 'WITHSCORES', 'LIMIT', '0', '1000')
	if #old > 0 then
		redis.call('ZREM', set, unpack(removeJobs(prefix, old, now, holdMs)))
	end
	local excess = redis.call('ZCARD', set) - count
	if excess > 0 then
		local last = string.format('%d', excess - 1)
		removeJobs(prefix, redis.call('ZRANGE', set, '0', last, 'WITHSCORES'), now, holdMs)
		redis.call('ZREMRANGEBYRANK', set, '0', last)
	end
end
`;

// KEYS: 1 job hash, 2 its lock, 3 active, 4 stalled, 5 completed.
// ARGV: 1 job id, 2 the lock's token, 3 return value, 4 progress ('' when written already),
// 5 attempts made, 6 now (ms), 7 keep age (s), 8 keep count, 9 the queue's key prefix, 10 how long
// an id stays held (ms).
// Returns 1 when finished, 0 when this replica no longer holds the job (its lock ran out or
// another replica took it over; Redis lost it): nothing is written then.
const finishScript = `${trimFinishedLua}
if redis.call('GET', KEYS[2]) ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[2])
redis.call('SREM', KEYS[4], ARGV[1])
redis.call('LREM', KEYS[3], '-1', ARGV[1])
if ARGV[4] == '' then
	redis.call('HSET', KEYS[1], 'returnvalue', ARGV[3], 'finishedOn', ARGV[6], 'atm', ARGV[5])
else
	redis.call('HSET', KEYS[1], 'returnvalue', ARGV[3], 'finishedOn', ARGV[6], 'atm', ARGV[5], 'progress', ARGV[4])
end
local now = tonumber(ARGV[6])
redis.call('ZADD', KEYS[5], ARGV[6], ARGV[1])
trimFinished(KEYS[5], now, tonumber(ARGV[7]), tonumber(ARGV[8]), ARGV[9], tonumber(ARGV[10]))
return 1
`;

const commandName = 'platformTuiFinish';

type Scripted = {[commandName]: (...keysAndArgs: string[]) => Promise<number>};

/** How long finished jobs are kept: `age` seconds, at most `count` of them. */
export type Keep = {age: number; count: number};

/**
 * Moves a running job to completed with `result`, and `progress` (the steps not written yet) when
 * given; false when this replica no longer holds the job.
 */
export type FinishJob = (job: Job, token: string, result: unknown, progress: unknown) => Promise<boolean>;

export function jobFinisher(client: RedisClient, prefix: string, keep: Keep, holdIdMs: number): FinishJob {
	if (!(commandName in client)) {
		client.defineCommand(commandName, {numberOfKeys: 5, lua: finishScript});
	}

	const scripted = client as unknown as Scripted;
	const key = (name: string) => `${prefix}${name}`;
	return async (job, token, result, progress) => {
		const id = job.id ?? '';
		const finished = await scripted[commandName](
			key(id), key(`${id}:lock`), key('active'), key('stalled'), key('completed'),
			id, token, JSON.stringify(result ?? null), progress === undefined ? '' : JSON.stringify(progress),
			String(job.attemptsMade + 1), String(Date.now()), String(keep.age), String(keep.count), prefix, String(holdIdMs),
		);
		return finished === 1;
	};
}
