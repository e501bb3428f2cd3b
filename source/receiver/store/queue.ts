/**
 * A bounded job queue: at most `concurrency` jobs run at once (none before `start`); up to
 * `maxPending` more wait. `push` never waits for a job, so whoever enqueues answers at once.
 */
export type Job = (signal: AbortSignal) => Promise<void>;

export class JobQueue {
	private readonly waiting: Array<{job: Job; controller: AbortController}> = [];
	private readonly running = new Set<AbortController>();
	private readonly idleWaiters = new Set<() => void>();

	private concurrency = 0;

	constructor(readonly maxPending: number) {}

	/** Starts running jobs, at most `concurrency` at once. */
	start(concurrency: number): void {
		if (!Number.isInteger(concurrency) || concurrency < 1) {
			throw new RangeError(`concurrency must be a positive integer; got ${concurrency}`);
		}

		this.concurrency = concurrency;
		this.next();
	}

	/** Jobs queued or running. */
	get size(): number {
		return this.waiting.length + this.running.size;
	}

	/** Jobs running now. */
	get active(): number {
		return this.running.size;
	}

	/** Adds a job; false when the queue is full (nothing is added then). */
	push(job: Job): boolean {
		if (this.running.size >= this.concurrency && this.waiting.length >= this.maxPending) {
			return false;
		}

		this.waiting.push({job, controller: new AbortController()});
		this.next();
		return true;
	}

	/** Resolves when no job is queued or running, or after `timeoutMs` (true when idle). */
	async whenIdle(timeoutMs: number): Promise<boolean> {
		if (this.size === 0) {
			return true;
		}

		return new Promise(resolve => {
			const done = (idle: boolean) => {
				clearTimeout(timer);
				this.idleWaiters.delete(onIdle);
				resolve(idle);
			};

			const onIdle = () => {
				done(true);
			};

			const timer = setTimeout(() => {
				done(this.size === 0);
			}, Math.min(2_147_483_647, Math.max(0, timeoutMs)));
			this.idleWaiters.add(onIdle);
		});
	}

	/**
	 * Aborts every job with `reason`: running ones see their signal abort; waiting ones start at
	 * once with an aborted signal (concurrency no longer applies), so each can run its own
	 * clean-up. Resolves when all have settled, or after `timeoutMs` (true when all settled).
	 */
	async abortAll(reason: Error, timeoutMs: number): Promise<boolean> {
		for (const controller of this.running) {
			controller.abort(reason);
		}

		const waiting = this.waiting.splice(0);
		for (const entry of waiting) {
			entry.controller.abort(reason);
			this.run(entry);
		}

		return this.whenIdle(timeoutMs);
	}

	private next(): void {
		while (this.running.size < this.concurrency && this.waiting.length > 0) {
			const entry = this.waiting.shift();
			if (entry) {
				this.run(entry);
			}
		}
	}

	private run(entry: {job: Job; controller: AbortController}): void {
		this.running.add(entry.controller);
		void (async () => {
			try {
				await entry.job(entry.controller.signal);
			} catch {
				// Jobs report their own failures; the queue only keeps going.
			} finally {
				this.running.delete(entry.controller);
				this.next();
				if (this.size === 0) {
					for (const waiter of [...this.idleWaiters]) {
						waiter();
					}
				}
			}
		})();
	}
}
