import type {AnswerMode} from './sparse.js';
import type {ConnectionSettings} from '../config/settings.js';
import type {LocalContent, Message, MessageLog} from './records.js';
import type {PlatformClock} from './clock.js';
import type {FaultRule, FaultSettings, InjectedFault} from './http/faults.js';
import type {DeliveryRecord, DeliveryState} from './chats/webhooks.js';
import type {WebhookEvent} from '../platform/types.js';

export type {DeliveryAttempt, DeliveryRecord, DeliveryState} from './chats/webhooks.js';
export type {FaultKind, FaultRule, FaultSettings, InjectedFault} from './http/faults.js';
export type {PlatformClock} from './clock.js';

/**
 * Caps on everything the local platform keeps in memory or on disk. Stores that hold user data
 * refuse new records with 403 QUOTA_EXCEEDED when full (nothing is silently dropped); the
 * inspection logs are ring buffers that drop their oldest entries.
 */
export type LocalPlatformLimits = {
	/** Chats, across all companies. */
	maxChats: number;
	/** Messages in one chat (each space message adds two: the user's and the assistant's). */
	maxMessagesPerChat: number;
	/** Message logs on one message. */
	maxLogsPerMessage: number;
	/** Content records, across all chats and companies. */
	maxContents: number;
	/** Largest single upload (PUT on a writeUrl), in bytes. */
	maxBlobBytes: number;
	/** All stored upload bytes together (temporary directory on disk), in bytes. */
	maxTotalBlobBytes: number;
	/** Leading bytes of a text-like file that are read from disk, extracted and indexed. */
	maxTextBytes: number;
	/** Largest PDF that is parsed; larger ones end in FAILED_PARSING. */
	maxPdfBytes: number;
	/** Chunks indexed per content; the rest of a very long document is not searchable. */
	maxChunksPerContent: number;
	/** Chunks indexed in total (about 1000 characters each); content ingested beyond it gets no more chunks. */
	maxIndexedChunks: number;
	/** Distinct words of a search string that are searched (the first ones); the rest are left out. */
	maxQueryTerms: number;
	/** Characters of a space message's text; a longer one is refused (400 MESSAGE_TOO_LONG). */
	maxMessageChars: number;
	/** Ring buffer of inspected requests. */
	maxRequestLog: number;
	/** Ring buffer of webhook deliveries (finished ones are dropped first). */
	maxDeliveryLog: number;
	/** Ring buffer of chat completion calls. */
	maxCompletionLog: number;
	/** API keys remembered (expired ones are forgotten first; a forgotten key is just "invalid"). */
	maxKeys: number;
};

export const defaultLimits: LocalPlatformLimits = {
	maxChats: 1000,
	maxMessagesPerChat: 2000,
	maxLogsPerMessage: 100,
	maxContents: 5000,
	maxBlobBytes: 2 * 1024 * 1024 * 1024,
	maxTotalBlobBytes: 8 * 1024 * 1024 * 1024,
	maxTextBytes: 2 * 1024 * 1024,
	maxPdfBytes: 16 * 1024 * 1024,
	maxChunksPerContent: 2000,
	maxIndexedChunks: 20_000,
	maxQueryTerms: 32,
	maxMessageChars: 32_000,
	maxRequestLog: 1000,
	maxDeliveryLog: 1000,
	maxCompletionLog: 200,
	maxKeys: 1000,
};

export type LocalPlatformOptions = {
	/** TCP port; 0 (the default) picks a free one. */
	port?: number;
	/** Loopback address to bind; default 127.0.0.1. Non-loopback addresses are refused. */
	host?: string;
	/** Registered application (external module) URL; loopback only. Also settable later with setWebhookUrl. */
	webhookUrl?: string;
	/** Secret webhook signatures are made with; generated when absent. */
	endpointSecret?: string;
	/** How long a rotated-out key keeps working; default 24 h. */
	keyOverlapMs?: number;
	/** Share (0..1) of API calls answered with an injected 429 or 503; default 0. */
	failRate?: number;
	/** Retry-After seconds on injected 429s; default 1. */
	faultRetryAfterSeconds?: number;
	/** Delay added before answering every API and blob request; default 0. */
	latencyMs?: number;
	/** How late an operation under a `slow` fault rule is answered (it is carried out at once); default 16 s. */
	slowMs?: number;
	/** Makes fault injection deterministic. */
	seed?: number;
	/** Faults for chosen operations: refuse (429/503), perform then answer 502, answer 200 with `null`, or perform then answer late. */
	faults?: readonly FaultRule[];
	/** Time for timestamps, key expiry, ingestion steps and the assistant's pauses; default the system clock. */
	clock?: PlatformClock;
	/** OpenAI-compatible endpoint (loopback only) that chat completions are proxied to instead of the local model. */
	llmUrl?: string;
	/** Model name sent to llmUrl; default: the platform model id of the request. */
	llmModel?: string;
	/** Bearer key sent to llmUrl, if it needs one. */
	llmApiKey?: string;
	/** Time spent in each ingestion state; default 150 ms. */
	ingestionStepMs?: number;
	/** Ignored (accepted so that callers keep working): the built-in answer streams in steps of its own (chats/assistant.ts). */
	assistantStepMs?: number;
	/** First retry delay of webhook deliveries (doubling after); default 1000 ms. */
	deliveryRetryBaseMs?: number;
	/** Timeout of one delivery attempt; default 10 s. */
	deliveryTimeoutMs?: number;
	/** Event socket: every stream is closed this long after it opened, without warning; default 10 min. */
	eventSocketMaxAgeMs?: number;
	/** Event socket: a new stream's subscription is live this long after it opened; default 300 ms. */
	eventSocketGoLiveMs?: number;
	/** Fixed credentials instead of generated ones. */
	apiKey?: string;
	appId?: string;
	userId?: string;
	companyId?: string;
	limits?: Partial<LocalPlatformLimits>;
	/**
	 * `full` (the default) answers with whole records, as the real service usually does; `sparse`
	 * with only the fields its contract promises (`sparse.ts`).
	 */
	answers?: AnswerMode;
	/** Receives a structured line for every request, delivery attempt, ingestion step and key rotation. */
	log?: (event: LocalPlatformEvent) => void;
};

/** What a client needs to talk to the local platform (the PLATFORM_* settings). */
export type LocalPlatformSettings = ConnectionSettings & {endpointSecret: string};

export type LocalPlatformEvent =
	| {type: 'request'; at: string; requestId: string; method: string; path: string; status: number; durationMs: number; fault?: InjectedFault}
	| {
		type: 'delivery';
		at: string;
		eventId: string;
		event: string;
		url: string;
		attempt: number;
		status: number | null;
		error?: string;
		state: DeliveryState;
	}
	| {type: 'ingestion'; at: string; contentId: string; key: string; state: string; error?: string}
	| {type: 'key-rotated'; at: string; oldKeyExpiresAt: string};

/** One API or blob request as received, for inspection by tests. */
export type RequestRecord = {
	requestId: string;
	at: string;
	method: string;
	path: string;
	query: Record<string, string>;
	headers: Record<string, string>;
	/** Parsed JSON body of API calls (undefined for none; blob bodies are never kept). */
	body: unknown;
	/** 0 until the answer has been sent. */
	status: number;
	durationMs: number;
	fault?: InjectedFault;
};

/** One chat completion call, with the parameters that took effect. */
export type CompletionRecord = {
	at: string;
	model: string;
	/** options.temperature, or null when absent (model default). A top-level temperature never counts. */
	temperature: number | null;
	/** Top-level fields the gateway dropped (e.g. `temperature`). */
	ignoredFields: string[];
	messages: Array<{role: string; content: string}>;
	via: 'local-model' | 'llm-url';
	answer: string;
	/** Whether the call came over HTTP or from the built-in assistant. */
	source: 'api' | 'assistant';
};

export type LocalPlatform = {
	readonly baseUrl: string;
	/** The newest API key (changes on every rotation). */
	readonly apiKey: string;
	readonly appId: string;
	readonly userId: string;
	readonly companyId: string;
	readonly assistantId: string;
	readonly endpointSecret: string;
	/** Directory holding uploaded bytes; removed on close. */
	readonly blobDirectory: string;
	settings(): LocalPlatformSettings;
	readonly webhookUrl: string | undefined;
	/** Registers (or with no argument removes) the application URL; loopback only. */
	setWebhookUrl(url?: string): void;
	/** Changes fault injection at run time (`rules` replaces the operation faults in force). */
	setFaults(faults: FaultSettings): void;
	/**
	 * Publishes an event on the event socket, as the platform does for each event it would send by
	 * webhook: to every open, live stream subscribed to its name. Returns the streams it reached.
	 */
	publishEvent(event: WebhookEvent<unknown>): number;
	/** The event socket: streams opened so far, streams open now, frames sent. */
	readonly eventSocket: {opened: number; open: number; sent: number};
	/** Closes every event-socket stream and refuses new ones (503) for `ms`; 0 closes them only. */
	dropEventStreams(refuseMs?: number): void;
	/** The operation names fault rules may use. */
	readonly operations: readonly string[];
	readonly deliveries: readonly DeliveryRecord[];
	readonly requests: readonly RequestRecord[];
	readonly completions: readonly CompletionRecord[];
	/** A stored record as the API shows it, or undefined. */
	content(id: string): LocalContent | undefined;
	message(id: string): Message | undefined;
	messageLogs(messageId: string): MessageLog[];
	/** Stops the server (open connections are closed), cancels pending work and removes the blob directory. */
	close(): Promise<void>;
};
