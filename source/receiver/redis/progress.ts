/**
 * A job's recorded steps written in one command of a script: the job's `progress` field is set when
 * the job is still in Redis. BullMQ's own `updateProgress` also reads the queue's event bound and
 * appends a `progress` event to the queue's event stream, which nothing here reads: five Redis
 * commands a step. Here two: the script and one HSET that writes the progress and the job's name
 * again (unchanged), and so says by the count of fields it created whether the job was there (the
 * name is in every job hash); a hash it created for a job that is gone is removed in the same script.
 */
import type {Job} from 'bullmq';
import type {RedisClient} from './connection.js';
import {progressOf} from './mapping.js';
import type {StepRecord} from '../store/backend.js';

const commandName = 'platformTuiSaveSteps';

// KEYS: 1 the job hash. ARGV: 1 the progress as JSON, 2 the job's name. Returns 1 when written, 0
// when the job is gone (both fields new: the hash did not exist).
const saveScript = `
if redis.call('HSET', KEYS[1], 'progress', ARGV[1], 'name', ARGV[2]) == 2 then
	redis.call('DEL', KEYS[1])
	return 0
end
return 1
`;

type Scripted = {[commandName]: (key: string, progress: string, name: string) => Promise<number>};

/** Writes `steps` as the job's progress; false when Redis no longer has the job. */
export type SaveSteps = (job: Job, steps: StepRecord[]) => Promise<boolean>;

export function stepSaver(client: RedisClient, jobKey: (jobId: string) => string): SaveSteps {
	if (!(commandName in client)) {
		client.defineCommand(commandName, {numberOfKeys: 1, lua: saveScript});
	}

	const scripted = client as unknown as Scripted;
	return async (job, steps) => {
		const progress = progressOf(steps);
		const written = await scripted[commandName](jobKey(job.id ?? ''), JSON.stringify(progress), job.name) === 1;
		if (written) {
			// The job object in this process reads as stored (BullMQ's updateProgress sets it too).
			job.progress = progress;
		}

		return written;
	};
}
