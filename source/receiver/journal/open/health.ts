/**
 * Whether the journal can be written now. Every journal write reports its outcome here: a failed
 * commit (a full disk, an I/O error) marks the journal unwritable with the reason and the time,
 * the next commit that succeeds marks it writable again. `accept` answers 503 while its own write
 * fails, and tries again at each delivery, so the receiver recovers by itself once space returns.
 */
import {errorMessage} from '../../../format/value.js';
import type {WriteState} from '../../store/backend.js';

/**
 * lmdb rejects every write of a failed commit with "Commit failed" and attaches the commit's own
 * error as a second promise (`commitError`), rejected a moment later; nobody else awaits it, so it
 * is read here for the reason and never left unhandled.
 */
function absorb(error: unknown, reason: (text: string) => void): void {
	const commit = (error as {commitError?: unknown} | undefined)?.commitError;
	if (commit instanceof Promise) {
		commit.catch((cause: unknown) => {
			reason(errorMessage(cause));
		});
	}
}

export class WriteHealth {
	private state: WriteState = {writable: true, since: new Date().toISOString()};
	private everFailed = false;

	current(): WriteState {
		return this.state;
	}

	/** Whether any write of this process failed, recovered since or not (no clean-stop seal then, seal.ts). */
	get hasFailed(): boolean {
		return this.everFailed;
	}

	/** A write failed: the journal is unwritable from now (the first failure's time is kept). */
	failed(error: unknown): void {
		this.everFailed = true;
		if (this.state.writable) {
			this.state = {writable: false, reason: errorMessage(error), since: new Date().toISOString()};
		}

		absorb(error, text => {
			if (!this.state.writable) {
				this.state.reason = text;
			}
		});
	}

	/** A write committed: the journal is writable again. */
	succeeded(): void {
		if (!this.state.writable) {
			this.state = {writable: true, since: new Date().toISOString()};
		}
	}

	/** Reports a write whose outcome nobody else awaits; never rejects. */
	watch(write: Promise<unknown>): void {
		write.then(() => {
			this.succeeded();
		}, (error: unknown) => {
			this.failed(error);
		});
	}
}

let guarding = false;

function isCommitFailure(reason: unknown): reason is {commitError: Promise<unknown>} {
	return reason instanceof Error && (reason as {commitError?: unknown}).commitError instanceof Promise;
}

/**
 * A write error of lmdb's own batch (its promise kept to itself): "No space left on device" with
 * errno 28 (ENOSPC) or 5 (EIO) and no `commitError`, rethrown when the batch's page write fails.
 */
function isWriteFailure(reason: unknown): boolean {
	if (!(reason instanceof Error)) {
		return false;
	}

	const {code} = reason as {code?: unknown};
	return code === 28 || code === 5 || code === 'ENOSPC' || code === 'EIO' || /no space left on device/i.test(reason.message);
}

/**
 * lmdb opens each event-loop turn's batch with a write of its own whose promise it keeps to
 * itself; when that batch's commit fails (a full disk), the promise rejects with nobody to handle
 * it, which would end the process. Every write of ours handles its own failure, so such a
 * rejection (a failed commit, or the ENOSPC/EIO of a page write) is dropped here; any other unhandled rejection still ends the process as Node's
 * default does, unless someone else listens for them.
 */
export function guardCommitFailures(): void {
	if (guarding) {
		return;
	}

	guarding = true;
	process.on('unhandledRejection', reason => {
		if (isCommitFailure(reason)) {
			reason.commitError.catch(() => undefined);
			return;
		}

		if (isWriteFailure(reason)) {
			return;
		}

		if (process.listenerCount('unhandledRejection') === 1) {
			throw reason;
		}
	});
}

/**
 * A journal's writes with their recovery: a failed write (or one refused for the disk reserve)
 * pauses the attempts and looks at the disk every `checkMs` until it is usable again, then marks
 * the journal writable and resumes them from their last recorded step.
 */
export class WriteRecovery {
	readonly health = new WriteHealth();
	private timer: NodeJS.Timeout | undefined;
	private stopped = false;

	constructor(private readonly options: {checkMs: number; blocked: () => boolean; pause: () => void; resume: () => void}) {}

	failed(error: unknown): void {
		this.health.failed(error);
		this.options.pause();
		if (this.timer || this.stopped) {
			return;
		}

		this.timer = setInterval(() => {
			if (this.options.blocked()) {
				return;
			}

			clearInterval(this.timer);
			this.timer = undefined;
			this.health.succeeded();
			this.options.resume();
		}, this.options.checkMs);
		this.timer.unref();
	}

	stop(): void {
		this.stopped = true;
		clearInterval(this.timer);
	}
}
