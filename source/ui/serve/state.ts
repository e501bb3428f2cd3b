import type {
	AcceptedEvent, DuplicateEvent, JobStage, ReceiverCounters, ReceiverEvent, RejectedEvent, StageEvent,
} from '../../receiver/events.js';
import {shortType} from '../event-type.js';
import {clock, handlingText, rejectionText, stageText} from './format.js';
import type {Notice} from './notices.js';

/** One row of the event log. */
export type LogRow = {
	/** Unique and stable (React key). */
	key: string;
	/** The event it is about, when it names one (selection, details, replay). */
	eventId?: string;
	time: string;
	/** The HTTP status; none for a job no request started here (resumed, taken over, replayed). */
	status?: number;
	/** Short event type, or `METHOD /path` for a rejected request. */
	label: string;
	chatId?: string;
	text?: string;
	/** What happened, or the live stage (cut to the width in the row). */
	detail: string;
	/** The whole story when the row's detail leaves part of it out (shown in the details). */
	full?: string;
	tone: 'ok' | 'warn' | 'error' | 'info' | 'live';
	stage?: JobStage;
};

export type ServeState = {
	/** Finished rows not yet written (they go into <Static>), notices among them in the order heard. */
	done: Array<LogRow | Notice>;
	/** The latest finished rows that name an event, oldest first: what the arrow keys select. */
	recent: LogRow[];
	/** Rows of chosen-module jobs still queued or running, by event id. */
	live: Map<string, LogRow>;
	/** Events replayed from the screen whose job has not started yet (their row says "replay"). */
	replaying: Set<string>;
	/** Edited copies stored from the screen (e) whose job has not started yet (their row says "edited"). */
	edited: Set<string>;
	draining?: {jobs: number; timeoutMs: number; at: string};
	stopped?: {cutOff: number; leftWaiting: number; counters: ReceiverCounters};
};

export function initialServeState(): ServeState {
	return {done: [], recent: [], live: new Map(), replaying: new Set(), edited: new Set()};
}

/** How many finished rows stay selectable. */
export const maxRecentRows = 200;

function finish(state: ServeState, row: LogRow): void {
	state.done.push(row);
	if (row.eventId) {
		state.recent.push(row);
		if (state.recent.length > maxRecentRows) {
			state.recent.splice(0, state.recent.length - maxRecentRows);
		}
	}
}

/** Whether a finished row is a notice (about no event) rather than an event's row. */
export function isNotice(row: LogRow | Notice): row is Notice {
	return 'kind' in row;
}

/** A notice goes into the log as a finished row, between the event rows finished before and after it. */
export function applyNotice(state: ServeState, notice: Notice): void {
	state.done.push(notice);
}

let sequence = 0;
const nextKey = (prefix: string) => `${prefix}-${++sequence}`;

function rejectedRow(event: RejectedEvent): LogRow {
	return {
		key: nextKey('rejected'),
		...(event.eventId ? {eventId: event.eventId} : {}),
		time: clock(event.at),
		status: event.status,
		label: `${event.method} ${event.path}`,
		detail: `rejected: ${rejectionText(event.reason)}, from ${event.remoteAddress}`,
		full: `rejected: ${event.error} (${rejectionText(event.reason)}) from ${event.remoteAddress}`,
		tone: 'error',
	};
}

function onAccepted(state: ServeState, event: AcceptedEvent): void {
	const row: LogRow = {
		key: nextKey('accepted'),
		...(event.eventId ? {eventId: event.eventId} : {}),
		time: clock(event.at),
		status: event.status,
		label: shortType(event.eventType),
		detail: handlingText(event),
		tone: event.handling === 'invalid' ? 'error' : (event.handling === 'unhandled' ? 'info' : 'ok'),
		...(event.chatId === undefined ? {} : {chatId: event.chatId}),
		...(event.text === undefined ? {} : {text: event.text}),
	};
	if (event.handling === 'queued' && event.eventId) {
		row.tone = 'live';
		row.stage = 'queued';
		state.live.set(event.eventId, row);
	} else {
		finish(state, row);
	}
}

function duplicateRow(event: DuplicateEvent): LogRow {
	return {
		key: nextKey('duplicate'),
		eventId: event.eventId,
		time: clock(event.at),
		status: event.status,
		label: shortType(event.eventType),
		detail: `duplicate of ${event.eventId}, not processed again`,
		tone: 'warn',
		...(event.chatId === undefined ? {} : {chatId: event.chatId}),
	};
}

/**
 * The live row of a stage event's job, opened when no request of this screen started the job:
 * resumed at start-up, taken over from another replica, replayed with r or an edited copy stored
 * with e. It gets its row (and is in the counters) all the same.
 */
function liveRowOf(state: ServeState, event: StageEvent): LogRow {
	let row = state.live.get(event.eventId);
	if (!row) {
		const label = state.edited.delete(event.eventId) ? 'edited' : (state.replaying.delete(event.eventId) ? 'replay' : 'resumed');
		row = {
			key: nextKey(label),
			eventId: event.eventId,
			time: clock(event.at),
			label,
			chatId: event.chatId,
			detail: stageText(event),
			tone: 'live',
			stage: event.stage,
		};
		state.live.set(event.eventId, row);
	}

	return row;
}

function onStage(state: ServeState, event: StageEvent): void {
	const row = liveRowOf(state, event);
	row.stage = event.stage;
	row.detail = stageText(event);
	// A waiting event leaves the live area too (it may wait for minutes); its next attempt gets a row of its own.
	if (event.stage === 'answered' || event.stage === 'failed' || event.stage === 'elsewhere' || event.stage === 'lost' || event.stage === 'waiting') {
		row.tone = event.stage === 'answered' ? 'ok' : (event.stage === 'elsewhere' ? 'info' : (event.stage === 'waiting' ? 'warn' : 'error'));
		state.live.delete(event.eventId);
		finish(state, {...row, key: nextKey('finished')});
	}
}

/**
 * Folds one receiver event into the view state (mutating it; the screen re-renders on its own
 * schedule). Accepted chosen events open a live row that the stage events update; it moves to the
 * finished rows on 'answered' or 'failed'.
 */
export function applyEvent(state: ServeState, event: ReceiverEvent): void {
	switch (event.type) {
		case 'rejected': {
			finish(state, rejectedRow(event));
			return;
		}

		case 'accepted': {
			onAccepted(state, event);
			return;
		}

		case 'duplicate': {
			finish(state, duplicateRow(event));
			return;
		}

		case 'stage': {
			onStage(state, event);
			return;
		}

		case 'draining': {
			state.draining = {jobs: event.jobs, timeoutMs: event.timeoutMs, at: event.at};
			return;
		}

		case 'stopped': {
			state.stopped = {cutOff: event.cutOff, leftWaiting: event.leftWaiting, counters: event.counters};
		}
	}
}
