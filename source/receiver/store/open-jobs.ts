/**
 * The events this process counts in `processing`: accepted here (waiting for a worker) or running
 * here. One record for the answer's and the forward's job handlers, so the count goes down exactly
 * once per event, whichever way it ends: its job ends here, or the sweep (lost-sweep.ts) finds it
 * ended on another replica or lost with the Redis data.
 */
import type {ReceiverCounters} from '../events.js';

type OpenJob = {
	/** When it was accepted or started here (performance clock, ms). */
	since: number;
	chatId: string | undefined;
	running: boolean;
};

export class OpenJobs {
	private readonly jobs = new Map<string, OpenJob>();

	constructor(private readonly counters: ReceiverCounters) {}

	/** Counts an event once: accepted here, or started here without having been accepted here. */
	track(eventId: string, chatId?: string): void {
		if (!this.jobs.has(eventId)) {
			this.counters.processing++;
			this.jobs.set(eventId, {since: performance.now(), chatId, running: false});
		}
	}

	has(eventId: string): boolean {
		return this.jobs.has(eventId);
	}

	/** Its job started here (counted if it was not yet). */
	start(eventId: string): void {
		this.track(eventId);
		const job = this.jobs.get(eventId);
		if (job) {
			job.running = true;
		}
	}

	/** Its job ended here: no longer counted. Returns the time since it was accepted or started, ms. */
	end(eventId: string): number {
		const job = this.jobs.get(eventId);
		if (!job) {
			return 0;
		}

		this.jobs.delete(eventId);
		this.counters.processing--;
		return Math.round(performance.now() - job.since);
	}

	/** Events accepted here whose job is not running here, oldest first, at most `limit`: what the sweep asks the store about. */
	waiting(limit: number): Array<{eventId: string; chatId: string | undefined}> {
		const found: Array<{eventId: string; chatId: string | undefined}> = [];
		for (const [eventId, job] of this.jobs) {
			if (found.length >= limit) {
				break;
			}

			if (!job.running) {
				found.push({eventId, chatId: job.chatId});
			}
		}

		return found;
	}

	/** Stops counting an event that ended elsewhere (another replica, or lost); false when it is no longer counted or runs here. */
	drop(eventId: string): boolean {
		const job = this.jobs.get(eventId);
		if (!job || job.running) {
			return false;
		}

		this.jobs.delete(eventId);
		this.counters.processing--;
		return true;
	}
}
