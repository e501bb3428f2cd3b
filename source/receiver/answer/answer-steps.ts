/**
 * The steps the answer records (through `recordStep`, stored by the backend as they are) and how
 * recorded steps fold back into where an interrupted answer stands. Each step is recorded after
 * the platform call it names succeeded, before the next call; `searched`, `log-completed`,
 * `completed` and the answer's `message-written` spare a resume only work it can do again, and a
 * store may keep them to write with the step after them or the outcome (`later`, RecordOptions in
 * store/backend.ts):
 *
 * - `log-requested` {order}: a message log is about to be created. Recorded BEFORE the call, so
 *   that a crash between the platform creating the log and `log-created` being stored leaves a
 *   trace: the platform has no way to list a message's logs, so such a log cannot be found again
 *   and may stay RUNNING; this step (without its `log-created`) says so in `events show`.
 * - `log-created` {order, id}: a message log was created (RUNNING).
 * - `log-refused` {order} (error): the platform refused the creation before carrying it out (429,
 *   503 with Retry-After, a 4xx, a connection refused): no log was made, a later attempt creates it.
 * - `log-unknown` {order} (error): the creation's outcome is unknown (a timeout, a 5xx, a connection
 *   lost after sending, the drain deadline): the platform may have made a log whose id is lost. No
 *   log of the event is created again, so at most this one is left RUNNING; the step names it.
 * - `searched` {context, documents}: the search ran and the context was built.
 * - `log-completed` {order, id}: a log was set COMPLETED.
 * - `completed` {text}: the model's answer (never asked again once recorded).
 * - `failing` (error): the failure path started; a resume continues it rather than the answer.
 * - `log-failed` {order, id}: a log was set FAILED.
 * - `final-writing` {apology}: the final message (the answer, or the apology) is about to be
 *   written. Recorded BEFORE the write, and no write is made unless it is stored: a resume that
 *   finds it without `message-written` reads the message back rather than writing blindly, and
 *   never writes the other text over it.
 * - `message-written` {apology}: the assistant message was written; the answer is done.
 * - `waiting` {until, tries, phase} (error): a transient failure; the next attempt is at `until`
 *   (retry-schedule.ts).
 * - `apology-failed` (error): the apology could not be written.
 */
import {isRecord} from '../../format/value.js';
import type {StepRecord} from '../store/backend.js';

export const stepNames = {
	logRequested: 'log-requested',
	logCreated: 'log-created',
	logRefused: 'log-refused',
	logUnknown: 'log-unknown',
	searched: 'searched',
	logCompleted: 'log-completed',
	completed: 'completed',
	failing: 'failing',
	logFailed: 'log-failed',
	finalWriting: 'final-writing',
	messageWritten: 'message-written',
	apologyFailed: 'apology-failed',
} as const;

export type LogOrder = 1 | 2;

export type LogState = {id: string; status: 'RUNNING' | 'COMPLETED' | 'FAILED'};

/** Where an answer stands after the recorded steps. */
export type AnswerProgress = {
	logs: Partial<Record<LogOrder, LogState>>;
	/**
	 * The log whose creation's outcome is unknown (`log-unknown`, or a `log-requested` left without
	 * its outcome by an attempt that died): the event creates no log after it.
	 */
	orphan?: LogOrder;
	searched?: {context: string; documents: number};
	completion?: string;
	/** The failure path started (its reason). */
	failing?: string;
	written?: {apology: boolean};
	/** The final message about to be written (recorded before the write), and when. */
	intent?: {apology: boolean; at: number};
};

function orderOf(data: Record<string, unknown> | undefined): LogOrder | undefined {
	const order = data?.order;
	return order === 1 || order === 2 ? order : undefined;
}

function idOf(data: Record<string, unknown> | undefined): string | undefined {
	return typeof data?.id === 'string' ? data.id : undefined;
}

/** Applies one recorded step to the progress (mutating it); unknown steps change nothing. */
export function applyStep(progress: AnswerProgress, step: StepRecord): void {
	const data = isRecord(step.data) ? step.data : undefined;
	const order = orderOf(data);
	switch (step.name) {
		case stepNames.logCreated: {
			const id = idOf(data);
			if (order && id) {
				progress.logs[order] = {id, status: 'RUNNING'};
			}

			break;
		}

		case stepNames.logUnknown: {
			if (order && progress.orphan === undefined) {
				progress.orphan = order;
			}

			break;
		}

		case stepNames.logCompleted:
		case stepNames.logFailed: {
			const log = order ? progress.logs[order] : undefined;
			if (log) {
				log.status = step.name === stepNames.logCompleted ? 'COMPLETED' : 'FAILED';
			}

			break;
		}

		case stepNames.searched: {
			if (typeof data?.context === 'string' && typeof data.documents === 'number') {
				progress.searched = {context: data.context, documents: data.documents};
			}

			break;
		}

		case stepNames.completed: {
			if (typeof data?.text === 'string') {
				progress.completion = data.text;
			}

			break;
		}

		case stepNames.failing: {
			progress.failing = step.error ?? 'the answer failed';
			break;
		}

		case stepNames.finalWriting: {
			progress.intent = {apology: data?.apology === true, at: Date.parse(step.at)};
			break;
		}

		case stepNames.messageWritten: {
			progress.written = {apology: data?.apology === true};
			break;
		}

		default: {
			break;
		}
	}
}

/** Folds recorded steps, oldest first, into the progress they show. */
export function foldSteps(steps: readonly StepRecord[] = []): AnswerProgress {
	const progress: AnswerProgress = {logs: {}};
	for (const step of steps) {
		applyStep(progress, step);
	}

	const [unknown] = unknownLogRequests(steps);
	if (unknown && progress.orphan === undefined) {
		progress.orphan = unknown;
	}

	return progress;
}

/**
 * The log creations a crash may have left unknown: a `log-requested` not followed by its
 * outcome (`log-created`, `log-refused`, `log-unknown`) before the next request of the same order
 * (or the end of the steps).
 */
export function unknownLogRequests(steps: readonly StepRecord[] = []): LogOrder[] {
	const pending: LogOrder[] = [];
	const requested = new Set<LogOrder>();
	for (const step of steps) {
		const order = orderOf(isRecord(step.data) ? step.data : undefined);
		if (!order) {
			continue;
		}

		if (step.name === stepNames.logRequested) {
			if (requested.has(order)) {
				pending.push(order);
			}

			requested.add(order);
		} else if (step.name === stepNames.logCreated || step.name === stepNames.logRefused || step.name === stepNames.logUnknown) {
			requested.delete(order);
		}
	}

	return [...pending, ...requested];
}

/** The logs still RUNNING, in order. */
export function openLogs(progress: AnswerProgress): Array<{order: LogOrder; id: string}> {
	const open: Array<{order: LogOrder; id: string}> = [];
	for (const order of [1, 2] as const) {
		const log = progress.logs[order];
		if (log?.status === 'RUNNING') {
			open.push({order, id: log.id});
		}
	}

	return open;
}
