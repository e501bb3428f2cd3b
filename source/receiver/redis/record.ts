/**
 * Events that are recorded only (logged, ignored) stored by one script per event-loop turn: for
 * each, the exactly-once check and the event itself as a job already completed, as the worker
 * would leave it. The job holds the id while it is kept (at least 24 h, the exactly-once window);
 * if the count bound removes it sooner, the trim leaves the id a hold of its own for the rest of
 * the window (finished.ts), so no key per event is written for the common case. Through BullMQ
 * such an event costs its add, the worker's move to active and its move to completed: about 40
 * Redis commands and three scripts for a job that does nothing. The job hash has the fields
 * BullMQ's add and the worker write (`name`, `data`, `opts`, `timestamp`, `processedOn`,
 * `finishedOn`, `returnvalue`, one attempt started and made), so `events list`, `show` and
 * `replay` read it as any other; the completed set is kept within the queue's bounds by age and
 * count as BullMQ's own completion does (`removeOnComplete`), by the same Lua as the worker's own
 * completion (finished.ts).
 *
 * The events read in one turn go in one call (at most `batchLimit`), sent as the turn ends with
 * the turn's other writes (write-together.ts): a script call's own cost, in redis-server and in
 * ioredis, and the completed set's trim are paid once per call instead of once per event. Each
 * event is answered by its own outcome; a failed call fails every event it carried (503 each).
 * Two deliveries of one id in a call: the second finds the id held, as it would a call later.
 */
import type {Queue} from 'bullmq';
import type {RedisClient} from './connection.js';
import type {NewEvent} from '../store/backend.js';
import {type Keep, trimFinishedLua} from './finished.js';
import {idHolds} from './admission.js';
import {writeTogether} from './write-together.js';

/** What the script did: the id was already held, or the event is stored. */
export type RecordOutcome = 'duplicate' | 'stored';

// KEYS: 1 the completed set, then for each event 3: its job hash, its id's hold (BullMQ's
// de-duplication key, as the trim or an earlier admission left it), the hold of releases before
// it (`id:<job id>`).
// ARGV: 1 how long an id stays held (ms), 2 the processing replica, 3 keep age (s), 4 keep count,
// 5 the queue's key prefix, then for each event 5: job id, name, data, opts, return value.
// Returns for each event 0 (duplicate) or 1 (stored).
const recordScript = `${trimFinishedLua}
local time = redis.call('TIME')
local ms = math.floor(tonumber(time[2]) / 1000)
local now = tonumber(time[1]) * 1000 + ms
local at = time[1] .. string.format('%03d', ms)
local outcomes = {}
local stored = false
for i = 0, (#KEYS - 1) / 3 - 1 do
	local k, a = 2 + i * 3, 6 + i * 5
	if redis.call('EXISTS', KEYS[k], KEYS[k + 1], KEYS[k + 2]) > 0 then
		outcomes[i + 1] = 0
	else
		redis.call('HSET', KEYS[k], 'name', ARGV[a + 1], 'data', ARGV[a + 2], 'opts', ARGV[a + 3], 'timestamp', at, 'delay', '0', 'priority', '0',
			'deid', ARGV[a], 'processedOn', at, 'pb', ARGV[2], 'ats', '1', 'atm', '1', 'finishedOn', at, 'returnvalue', ARGV[a + 4])
		redis.call('ZADD', KEYS[1], at, ARGV[a])
		outcomes[i + 1] = 1
		stored = true
	end
end
if stored then trimFinished(KEYS[1], now, tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5], tonumber(ARGV[1])) end
return outcomes
`;

const commandName = 'platformTuiRecordAll';

/** The most events one call carries; more in one turn go in further calls. */
export const batchLimit = 64;

type Scripted = {[commandName]: (numberOfKeys: string, ...keysAndArgs: string[]) => Promise<number[]>};

export type RecordSettings = {
	holdIdMs: number;
	keep: Keep;
	/** Named as the job's processor (`events replay` of a busy event names it; here never busy). */
	replica: string;
};

/**
 * Stores a recorded-only event as a completed job unless its id is held. `opts`: the job options
 * BullMQ's add would store (the queue's defaults with the job id and its hold).
 */
export type RecordEvent = (jobId: string, event: NewEvent, opts: Record<string, unknown>) => Promise<RecordOutcome>;

type Waiting = {jobId: string; event: NewEvent; opts: Record<string, unknown>; settle: (outcome: RecordOutcome) => void; fail: (error: unknown) => void};

export function eventRecorder(client: RedisClient, queue: Queue, settings: RecordSettings): RecordEvent {
	if (!(commandName in client)) {
		client.defineCommand(commandName, {lua: recordScript});
	}

	const scripted = client as unknown as Scripted;
	const shared = [String(settings.holdIdMs), settings.replica, String(settings.keep.age), String(settings.keep.count), queue.toKey('')];
	const completed = queue.toKey('completed');
	const call = (items: Waiting[]) => {
		const failAll = (error: unknown) => {
			for (const item of items) {
				item.fail(error);
			}
		};

		try {
			const keys = [completed];
			const args = [...shared];
			for (const {jobId, event, opts} of items) {
				keys.push(...idHolds(queue, jobId));
				args.push(jobId, event.event, JSON.stringify(event), JSON.stringify(opts), JSON.stringify({status: event.status}));
			}

			scripted[commandName](String(keys.length), ...keys, ...args).then(outcomes => {
				for (const [index, item] of items.entries()) {
					item.settle(outcomes[index] === 1 ? 'stored' : 'duplicate');
				}
			}, failAll);
		} catch (error) {
			// Whatever fails before the call leaves fails its events, never the turn's other writes.
			failAll(error);
		}
	};

	let waiting: Waiting[] = [];
	const send = () => {
		const all = waiting;
		waiting = [];
		for (let start = 0; start < all.length; start += batchLimit) {
			call(all.slice(start, start + batchLimit));
		}
	};

	return (jobId, event, opts) => new Promise((settle, fail) => {
		if (waiting.length === 0) {
			writeTogether(client, send);
		}

		waiting.push({jobId, event, opts, settle, fail});
	});
}
