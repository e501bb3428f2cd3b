/** Typed events the receiver reports; the UI (Ink screen, plain lines or NDJSON) subscribes to them. */

/** Why a request to the receiver was answered with an error. */
export type RejectionReason =
	| 'body-too-large'
	| 'missing-signature-headers'
	| 'malformed-signature'
	| 'signature-mismatch'
	| 'malformed-timestamp'
	| 'timestamp-outside-tolerance'
	| 'invalid-json'
	| 'not-an-object'
	| 'event-too-old'
	| 'busy'
	| 'backlog-full'
	| 'backend-unavailable'
	| 'shutting-down'
	| 'not-found'
	| 'method-not-allowed';

/** Where a chosen-module job stands. */
export type JobStage = 'queued' | 'searching' | 'generating' | 'forwarding' | 'answered' | 'failed'
	/** A transient failure: the next attempt is at `nextAttemptAt` (the schedule is stored with the event). */
	| 'waiting'
	/** Redis: ended on another replica (`finalStatus`), or removed after it ended there. */
	| 'elsewhere'
	/** Redis: its record was lost with the Redis data (a wipe) before any replica was seen ending it. */
	| 'lost';

export type ReceiverCounters = {
	/** Requests other than GET /health. */
	received: number;
	/** Deliveries whose signature checked out and that were answered 200 (duplicates included). */
	verified: number;
	/** Requests answered with an error status. */
	rejected: number;
	/** Verified deliveries of an event id already accepted. */
	duplicates: number;
	/** Chosen-module jobs queued or running. */
	processing: number;
	/** Chosen-module jobs whose answer was written. */
	answered: number;
	/** Chosen-module jobs that ended in the failure path (or were invalid). */
	failed: number;
};

type Base = {
	/** ISO time the event happened. */
	at: string;
};

/** A request that was answered with an error status. */
export type RejectedEvent = Base & {
	type: 'rejected';
	/** Sequence number of the request (1, 2, ...). */
	request: number;
	method: string;
	path: string;
	remoteAddress: string;
	status: number;
	reason: RejectionReason;
	/** The error returned in the body. */
	error: string;
	/** The event id, when the body or headers named one. */
	eventId?: string;
};

/** A verified event that was accepted (answered 200) for the first time. */
export type AcceptedEvent = Base & {
	type: 'accepted';
	request: number;
	remoteAddress: string;
	status: 200;
	/**
	 * Event id; absent when neither the body nor X-Platform-Id carried one (a queued chosen event
	 * then gets `body-<hash of the body>`, so its stage events can be matched and a redelivery of
	 * the same body is recognised).
	 */
	eventId?: string;
	eventType: string;
	/** How the event is handled: logged, queued for the answer, ignored, or refused as invalid. */
	handling: 'logged' | 'queued' | 'unhandled' | 'invalid';
	chatId?: string;
	userId?: string;
	companyId?: string;
	/** The user's text, in full (views cut it short). */
	text?: string;
	/** For handling 'invalid': the fields the event lacks. */
	missing?: string[];
	/** Which configured secret matched (0-based); absent for an event that came over the event socket (unsigned). */
	secretIndex?: number;
	/** `event-socket`: the event came as a frame of the event socket (`listen`), not as a webhook. */
	via?: 'event-socket';
};

/** A verified delivery of an event id already accepted: answered 200, not processed again. */
export type DuplicateEvent = Base & {
	type: 'duplicate';
	request: number;
	remoteAddress: string;
	status: 200;
	eventId: string;
	eventType: string;
	chatId?: string;
	/** `event-socket`: a copy that came as a frame of the event socket (`listen`). */
	via?: 'event-socket';
};

/** A chosen-module job moved to another stage. */
export type StageEvent = Base & {
	type: 'stage';
	eventId: string;
	chatId: string;
	stage: JobStage;
	/** Documents found by the search (from 'generating' on). */
	documents?: number;
	/** Time since the event was accepted, ms (on 'answered' and 'failed'). */
	durationMs?: number;
	/** Why the job failed (on 'failed'), or why it waits (on 'waiting'). */
	reason?: string;
	/** On 'waiting': when the next attempt is due (ISO 8601), what it is for, and how many waits so far. */
	nextAttemptAt?: string;
	waitingFor?: string;
	tries?: number;
	/** On 'failed': whether the open logs were closed FAILED and the apology written. */
	cleanup?: {logsFailed: number; apologyWritten: boolean; errors: string[]};
	/** The event type, when it is not a chosen-module event (forwarding handles every type). */
	eventType?: string;
	/** With --forward-to: the last forward attempt (its number, the handler's status code or error, its time). */
	forward?: ForwardAttempt;
	/** On 'elsewhere': how the other replica ended it (undefined when its record was already removed). */
	finalStatus?: string;
	/** On 'answered' or 'failed': Redis lost the job's record while it ran here; it ended from this replica's copy. */
	storeLost?: boolean;
};

/** One POST of an event to the developer's handler. */
export type ForwardAttempt = {attempt: number; status?: number; error?: string; ms: number; retryInMs?: number};

/** The receiver stopped accepting and waits for its jobs. */
export type DrainingEvent = Base & {
	type: 'draining';
	/** Jobs queued or running at the start of the drain. */
	jobs: number;
	timeoutMs: number;
};

/** The receiver is closed; the final counters. */
export type StoppedEvent = Base & {
	type: 'stopped';
	counters: ReceiverCounters;
	/** Jobs that had to be cut off at the drain deadline. */
	cutOff: number;
	/** Events left waiting by the stop (cut off, or waiting for a retry): the next start or another replica resumes them. */
	leftWaiting: number;
};

export type ReceiverEvent = RejectedEvent | AcceptedEvent | DuplicateEvent | StageEvent | DrainingEvent | StoppedEvent;

export type ReceiverEventListener = (event: ReceiverEvent) => void;
