/**
 * An event that is recorded only (logged, ignored) stored in one script: the exactly-once check,
 * the 24 h hold of its id and the event itself as a job already completed, as the worker would
 * leave it, in one round trip. Through BullMQ such an event costs its add, the worker's move to
 * active and its move to completed: about 40 Redis commands and three scripts for a job that does
 * nothing. The job hash has the fields BullMQ's add and the worker write (`name`, `data`, `opts`,
 * `timestamp`, `processedOn`, `finishedOn`, `returnvalue`, one attempt started and made), so
 * `events list`, `show` and `replay` read it as any other; the completed set is kept within the
 * queue's bounds by age and count as BullMQ's own completion does (`removeOnComplete`), by the
 * same Lua as the worker's own completion (finished.ts).
 */
import type {Queue} from 'bullmq';
import type {RedisClient} from './connection.js';
import type {NewEvent} from '../store/backend.js';
import {type Keep, trimFinishedLua} from './finished.js';
import {idHolds} from './admission.js';

/** What the script did: the id was already held, or the event is stored. */
export type RecordOutcome = 'duplicate' | 'stored';

// KEYS: 1 job hash, 2 the id's hold (BullMQ's de-duplication key), 3 the hold of releases before it
// (`id:<job id>`), 4 the completed set.
// ARGV: 1 job id, 2 name, 3 data, 4 opts, 5 hold ms, 6 return value, 7 the processing replica,
// 8 keep age (s), 9 keep count, 10 the queue's key prefix. Returns 0 (duplicate) or 1 (stored).
const recordScript = `${trimFinishedLua}
if redis.call('EXISTS', KEYS[1], KEYS[2], KEYS[3]) > 0 then return 0 end
local time = redis.call('TIME')
local ms = math.floor(tonumber(time[2]) / 1000)
local now = tonumber(time[1]) * 1000 + ms
local at = time[1] .. string.format('%03d', ms)
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[5])
redis.call('HSET', KEYS[1], 'name', ARGV[2], 'data', ARGV[3], 'opts', ARGV[4], 'timestamp', at, 'delay', '0', 'priority', '0',
	'deid', ARGV[1], 'processedOn', at, 'pb', ARGV[7], 'ats', '1', 'atm', '1', 'finishedOn', at, 'returnvalue', ARGV[6])
redis.call('ZADD', KEYS[4], at, ARGV[1])
trimFinished(KEYS[4], now, tonumber(ARGV[8]), tonumber(ARGV[9]), ARGV[10])
return 1
`;

const commandName = 'platformTuiRecord';

type Scripted = {[commandName]: (...keysAndArgs: string[]) => Promise<number>};

export type RecordSettings = {
	/** The job options BullMQ's add would store (the queue's defaults with the job id and its hold). */
	opts: Record<string, unknown>;
	holdIdMs: number;
	keep: Keep;
	/** Named as the job's processor (`events replay` of a busy event names it; here never busy). */
	replica: string;
};

/** Stores a recorded-only event as a completed job unless its id is held. */
export type RecordEvent = (jobId: string, event: NewEvent, settings: RecordSettings) => Promise<RecordOutcome>;

export function eventRecorder(client: RedisClient, queue: Queue): RecordEvent {
	if (!(commandName in client)) {
		client.defineCommand(commandName, {numberOfKeys: 4, lua: recordScript});
	}

	const scripted = client as unknown as Scripted;
	return async (jobId, event, settings) => {
		const keys = [...idHolds(queue, jobId), queue.toKey('completed')];
		const stored = await scripted[commandName](
			...keys,
			jobId,
			event.event,
			JSON.stringify(event),
			JSON.stringify(settings.opts),
			String(settings.holdIdMs),
			JSON.stringify({status: event.status}),
			settings.replica,
			String(settings.keep.age),
			String(settings.keep.count),
			queue.toKey(''),
		);
		return stored === 1 ? 'stored' : 'duplicate';
	};
}
