/**
 * Where verified events live between the 200 and their answer. Three backends implement it:
 * `memory` (tests and benchmarks: nothing survives the process), `journal` (LMDB in the data
 * directory: `serve`'s default) and `redis` (BullMQ: several replicas share the work). The
 * receiver calls `accept` before it answers 200 and hands processing to `start`; the `events`
 * commands read through `list`/`get` and reprocess through `replay`.
 */

/** `waiting`: an attempt failed for a transient reason; the next one is due at `nextAttemptAt`. */
export type EventStatus = 'received' | 'processing' | 'waiting' | 'answered' | 'failed' | 'logged' | 'ignored';

export const eventStatuses: readonly EventStatus[] = ['received', 'processing', 'waiting', 'answered', 'failed', 'logged', 'ignored'];

/**
 * One recorded step of the answer sequence (spec §6.2). The answer module names the steps and
 * puts what it needs to resume in `data` (a log id, the completion text, …); backends store steps
 * as they are, in order, and never interpret them.
 */
export type StepRecord = {
	name: string;
	/** ISO 8601. */
	at: string;
	data?: Record<string, unknown>;
	error?: string;
};

/** A verified delivery as the receiver hands it over. */
export type NewEvent = {
	/** The event id (body `id`, else the X-Platform-Event-Id header): the exactly-once key. */
	id: string;
	/** The event type, e.g. `platform.chat.external-module.chosen`. */
	event: string;
	/** ISO 8601: when the delivery arrived. */
	receivedAt: string;
	/**
	 * The raw body, byte for byte: its text when the bytes are valid UTF-8 (a leading byte-order
	 * mark kept), else their base64 (`bodyEncoding: 'base64'`). Read it through `bodyBytes` or
	 * `bodyText` (body.ts).
	 */
	body: string;
	/** `base64` when the body is not valid UTF-8; undefined (or absent, in records written before it existed) for text. */
	bodyEncoding?: 'base64';
	/** The delivery headers that matter (signature, created-at, event id, user agent), lower-case names. */
	headers: Record<string, string>;
	/** The chat the event is about, when it names one. */
	chatId?: string;
	/**
	 * `received` for an event to process; `logged` for a user message (recorded, nothing to do: the
	 * word serve shows for it too); `ignored` for one recorded only (another type, or one lacking
	 * the ids needed to write anything).
	 */
	status: 'received' | 'logged' | 'ignored';
	/** Why an event is ignored, in a few words. */
	note?: string;
};

/** A stored event with its processing state. */
export type StoredEvent = Omit<NewEvent, 'status'> & {
	status: EventStatus;
	/** ISO 8601 of the last change. */
	updatedAt: string;
	/** ISO 8601: when processing ended (answered or failed). */
	finishedAt?: string;
	/** Processing time of the last attempt, ms. */
	durationMs?: number;
	/** The reason of a failure. */
	error?: string;
	/** Steps of the current attempt, oldest first; a replay starts a new attempt with no steps. */
	steps: StepRecord[];
	/** How many times processing started (a resume after a crash counts, a replay counts). */
	attempts: number;
	/** ISO 8601, while `waiting`: when the next attempt is due (from the last `waiting` step). */
	nextAttemptAt?: string;
};

/** `full`: only from a store that bounds the backlog itself (`sharesBacklog`), given a limit. */
export type AcceptResult = 'stored' | 'duplicate' | 'full';

/**
 * What a job handler reports when it ends. `waiting`: a transient failure; the backend keeps the
 * event unfinished and hands it to a handler again (any replica's) once `nextAttemptAt` is past.
 */
export type JobResult = {status: 'answered' | 'failed'; error?: string} | {status: 'waiting'; nextAttemptAt: string; error?: string};

/**
 * `later`: the step only spares a resume work it can do again (a read, an update that changes
 * nothing the second time, an answer it can ask for again): the store may keep it until the next
 * step, or the job's outcome, and store both at once (Redis does: one write instead of two), never
 * after that next step.
 */
export type RecordOptions = {later?: boolean};

export type JobHandle = {
	/** The event with the steps recorded so far (non-empty when resuming after a crash). */
	event: StoredEvent;
	/** Aborted when the drain deadline passes; the handler then takes its failure path. */
	signal: AbortSignal;
	/** Persists one step; resolves once it is stored, before the next platform call. */
	recordStep: (step: StepRecord, options?: RecordOptions) => Promise<void>;
	/**
	 * Redis: true once the job's record was found gone while it ran (FLUSHALL, a restart of a Redis
	 * without persistence). Its steps are then no longer stored; the job goes on from this copy.
	 */
	storeLost?: () => boolean;
};

export type JobHandler = (job: JobHandle) => Promise<JobResult>;

export type ListFilter = {
	status?: EventStatus;
	/** Exact type, or its short form without `platform.chat.`. */
	type?: string;
	/** Only events received at or after this time (ms since the epoch). */
	sinceMs?: number;
	/** Newest first; at most this many. */
	limit?: number;
	/** Told of each stored event whose record is damaged (journal): it is left out of the list, not fatal to it. */
	onUnreadable?: (id: string, reason: string) => void;
};

export type BackendStats = {
	/** Events held. */
	count: number;
	/** Bytes on disk or in Redis, when the backend can tell. */
	bytes?: number;
	/** Cluster queue figures (redis). */
	queue?: {waiting: number; active: number; completed: number; failed: number};
};

/**
 * Whether the store can take events now: the journal's directory writable, Redis connected. A
 * minimal signal `/readyz` and the status read; a backend without `health` counts as healthy.
 */
export type BackendHealth = {ok: true} | {ok: false; reason: string};

/** The journal's own record of its writes: a failed commit (a full disk) marks it unwritable until one succeeds. */
export type WriteState = {
	writable: boolean;
	/** Why it cannot, when it cannot. */
	reason?: string;
	/** ISO 8601: since when the state holds. */
	since: string;
};

/** One store setting that can lose acknowledged events: what it is, what it risks, the command that fixes it. */
export type DurabilityProblem = {setting: string; why: string; fix: string};

/**
 * Whether the store keeps acknowledged events across a crash of its own and never drops them
 * (Redis: AOF on and `maxmemory-policy noeviction`). `volatile`: it may lose them (`problems`
 * names each setting); `unknown`: it could not be checked (a managed Redis that forbids CONFIG),
 * with the reason.
 */
export type StoreDurability = {state: 'persistent' | 'volatile' | 'unknown'; detail?: string; reason?: string; problems?: DurabilityProblem[]};

/** Events waiting for their next attempt (a transient failure), and the earliest one due. */
export type WaitingSummary = {count: number; nextAttemptAt?: string};

/** Unfinished events (received or processing) and when the oldest of them arrived. */
export type Backlog = {count: number; oldestReceivedAt?: string};

export type ReplayResult =
	| {outcome: 'done'; result: JobResult}
	| {outcome: 'queued'}
	| {outcome: 'unknown'; near: string[]}
	| {outcome: 'busy'; holder: string};

export type BackendErrorCode = 'backend-unavailable' | 'backend-busy' | 'backend-locked';

/** Thrown by `accept` when the event cannot be stored now: the receiver answers 503 so the platform retries. */
export class BackendUnavailableError extends Error {
	override name = 'BackendUnavailableError';
	readonly code: BackendErrorCode;

	constructor(code: BackendErrorCode, message: string, options?: {cause?: unknown}) {
		super(message, options?.cause === undefined ? undefined : {cause: options.cause});
		this.code = code;
	}
}

/**
 * Thrown by a job's `recordStep` (and by an attempt that cannot start) when the store cannot
 * record now (a full disk): the attempt pauses where it is, with no platform write, and the event
 * stays unfinished for when the store records again. Never the failure path: its apology would
 * not be recorded, and the resumed attempt would write the answer over it.
 */
export class StoreCannotRecordError extends Error {
	override name = 'StoreCannotRecordError';
	readonly code = 'store-cannot-record';

	constructor(message: string, options?: {cause?: unknown}) {
		super(message, options?.cause === undefined ? undefined : {cause: options.cause});
	}
}

export type EventBackend = {
	readonly kind: 'memory' | 'journal' | 'redis';
	/**
	 * Stores a verified event; resolves once it is durable ('duplicate' when the id is already held
	 * within the retention window, and then nothing changes). Throws `BackendUnavailableError` when it
	 * cannot store it (disk, Redis down, queue full): the receiver answers 503. `limit` is passed
	 * only to a store that `sharesBacklog`.
	 */
	accept(event: NewEvent, limit?: number): Promise<AcceptResult>;
	/**
	 * Redis: the store bounds the unfinished events itself, atomically for every process sharing
	 * it: `accept` with a `limit` answers 'full' once that many are unfinished cluster-wide.
	 */
	readonly sharesBacklog?: boolean;
	/**
	 * Starts processing: every event in status `received`, and every `processing` one left by a
	 * process that died, is handed to `handler`, at most `concurrency` at once.
	 */
	start(handler: JobHandler, options: {concurrency: number}): Promise<void>;
	/** Stops taking jobs, waits up to `drainMs` for running ones, then aborts the rest through their signal and waits for their failure path. */
	stop(drainMs: number): Promise<{cutOff: number}>;
	/** Jobs running in this process now. */
	active(): number;
	list(filter: ListFilter): Promise<StoredEvent[]>;
	get(id: string): Promise<StoredEvent | undefined>;
	/** The stored ids closest to `id` (a "did you mean" for an unknown one), closest first. */
	near(id: string): Promise<string[]>;
	/** Stores an edited copy of an event as a new event, to replay it next (journal). */
	storeEdited?(event: NewEvent): Promise<void>;
	/** The stored ids starting with `prefix`, sorted, at most `limit` (a short id typed by a person). */
	withPrefix?(prefix: string, limit: number): Promise<string[]>;
	/**
	 * Processes a stored event again with a fresh attempt: in this process through `handler`
	 * (journal, memory) or by re-queuing it for the replicas (redis). Never while another process
	 * holds the event.
	 */
	replay(id: string, handler: JobHandler): Promise<ReplayResult>;
	stats(): Promise<BackendStats>;
	/** Redis: whether acknowledged events survive a crash of redis-server, as last checked (at open, then every few seconds). */
	readonly durability?: StoreDurability;
	/**
	 * Redis: whether the id is still held as an exactly-once key (its event may be gone, removed by
	 * the count bound after it finished); false once Redis lost its data.
	 */
	holds?(id: string): Promise<boolean>;
	/** Whether the store can take events now (checked by `/readyz` and the status; cheap). */
	health?(): Promise<BackendHealth>;
	/** Unfinished events: in this process's store (journal, memory) or the cluster's queue (redis). */
	backlog?(): Promise<Backlog>;
	/**
	 * Makes every waiting event due now (the platform answers again): the journal and memory run
	 * this process's; Redis promotes the cluster's delayed jobs.
	 */
	wake?(): Promise<void>;
	/** Events waiting for their next attempt: this process's (journal, memory) or the cluster's (redis). */
	waiting?(): Promise<WaitingSummary>;
	/** Holds every worker (with Redis: every replica's) for `ms`: a platform 429's Retry-After. */
	throttle?(ms: number): Promise<void>;
	/** Releases the store (files, connections). */
	close(): Promise<void>;
};
