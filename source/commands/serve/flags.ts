/** `serve`'s flags and their parse (the command itself is serve.ts). */
import {parseStore, storeFlags} from '../events/store-flags.js';
import {formatCompactDuration} from '../../format/duration.js';
import type {CommandInput, FlagSpec} from '../../cli/types.js';
import {readFlags} from '../../cli/flag-values.js';
import {badFlag} from '../../cli/validators.js';
import {receiverDefaults} from '../../receiver/receiver-options.js';
import {defaultAnswerDeadlineMs, defaultFinalDeadlineMs} from '../../receiver/answer/retry-schedule.js';

export type ServeOptions = {
	port: number;
	host: string;
	concurrency: number;
	toleranceSeconds: number;
	drainTimeoutMs: number;
	/** --data-dir, else PLATFORM_TUI_DATA_DIR; undefined: the app's data folder (resolved at run time). */
	dataDir?: string;
	retentionMs: number;
	maxEvents: number;
	redisUrl?: string;
	/** Run on a Redis that may lose acknowledged events (no AOF, or an evicting maxmemory-policy), warning on every status line. */
	allowVolatileRedis?: boolean;
	/** Run on a data folder other users can write (warned about once). */
	allowSharedDataDir?: boolean;
	/** Acknowledge an event only once this many Redis replicas confirm it (WAIT); 0: off. */
	redisWaitReplicas?: number;
	/** How long WAIT may take before the delivery gets 503, ms (with redisWaitReplicas). */
	redisWaitTimeoutMs?: number;
	/** The admin listener's port (undefined: off; 0 picks a free one). */
	adminPort?: number;
	adminHost: string;
	/** Exit 1 after not being ready this long, ms. */
	exitOnUnreadyMs?: number;
	maxBacklog: number;
	/** Platform calls per second (undefined: unlimited). */
	platformRate?: number;
	forwardTo?: string;
	forwardRetries: number;
	/** How long after its arrival an event's answer (or forward) is still tried, ms. */
	answerDeadlineMs: number;
	/** How long after its arrival a final message (the apology) is still tried, ms. */
	finalMessageDeadlineMs: number;
	/** Hidden (tests, chaos): the first wait of the durable retries, ms. */
	retryBackoffMs?: number;
	/** Hidden (tests): the platform probe's interval, ms. */
	probeIntervalMs?: number;
	/** Hidden (tests): the forward backoff's base, ms. */
	forwardBackoffMs?: number;
};

/** What serve and listen share: the store, the answer or forward, their limits (serve adds its listener's). */
export type ReceivingOptions = Omit<ServeOptions, 'port' | 'host' | 'adminPort' | 'adminHost' | 'exitOnUnreadyMs'>;

const dayMs = 24 * 60 * 60 * 1000;
const port = {kind: 'int', min: 0, max: 65_535} as const;

/** Each flag once: its default, its range (the refusal's rule and example) and its help. */
export const serveFlags = {
	port: {type: 'number', default: 8080, range: port, description: 'Port to listen on; 0 picks a free one', placeholder: 'N'},
	host: {type: 'string', default: '127.0.0.1', description: 'Address to listen on (0.0.0.0 for every interface)', placeholder: 'HOST'},
	concurrency: {type: 'number', default: receiverDefaults.concurrency, range: {kind: 'int', min: 1, max: 1000}, description: 'Events processed at once', placeholder: 'N'},
	tolerance: {type: 'number', default: receiverDefaults.toleranceSeconds, range: {kind: 'seconds', max: 86_400}, description: 'Largest age of X-Platform-Created-At, seconds', placeholder: 'SECONDS'},
	drainTimeout: {type: 'number', default: receiverDefaults.drainTimeoutMs / 1000, range: {kind: 'seconds', max: 3600, allowZero: true}, description: 'On Ctrl+C or SIGTERM, time running jobs get to finish, seconds', placeholder: 'SECONDS'},
	dataDir: storeFlags.dataDir,
	allowSharedDataDir: {type: 'boolean', default: false, description: 'Run on a data folder other users can write (serve refuses it otherwise); serve warns about it once'},
	retention: {type: 'string', default: '7d', range: {kind: 'duration', min: dayMs, max: 3650 * dayMs}, description: 'How long events are kept (at least 24h: their ids are the exactly-once keys)', placeholder: 'DURATION'},
	maxEvents: {type: 'number', default: 100_000, range: {kind: 'int', min: 1000, max: 100_000_000}, description: 'Most events kept; the oldest finished go first, and past N unfinished ones deliveries get 503', placeholder: 'N'},
	redis: {...storeFlags.redis, description: 'Share events and work with other replicas through Redis'},
	allowVolatileRedis: {type: 'boolean', default: false, description: 'Run on a Redis that may lose acknowledged events (AOF off, or a maxmemory-policy other than noeviction); serve warns on every status line'},
	redisWaitReplicas: {type: 'number', default: 0, range: {kind: 'int', min: 0, max: 100}, description: 'Acknowledge an event only once N Redis replicas have it (WAIT); 503 when they do not confirm in time', placeholder: 'N'},
	redisWaitTimeout: {type: 'number', default: 1, range: {kind: 'seconds', max: 60}, description: 'How long --redis-wait-replicas waits for the replicas, seconds', placeholder: 'SECONDS'},
	adminPort: {type: 'number', range: port, description: 'Serve /livez, /readyz and /metrics on this port (default off; 0 picks a free one)', placeholder: 'N'},
	adminHost: {type: 'string', default: '127.0.0.1', description: 'Address of the admin listener', placeholder: 'HOST'},
	exitOnUnready: {type: 'number', range: {kind: 'seconds', max: 86_400, example: 60}, description: 'Exit 1 after not being ready this long, so a supervisor restarts serve', placeholder: 'SECONDS'},
	maxBacklog: {type: 'number', default: 10_000, range: {kind: 'int', min: 1, max: 100_000_000}, description: 'Unfinished events (per cluster with --redis) above which deliveries get 503 and are not stored', placeholder: 'N'},
	platformRate: {type: 'string', range: {kind: 'number', min: 0, aboveMin: true, max: 100_000, unit: 'calls per second', example: 5}, description: 'Most platform calls per second (per cluster with --redis); default unlimited', placeholder: 'N'},
	forwardTo: {type: 'string', range: {kind: 'url', protocols: ['http:', 'https:']}, description: 'POST each event, signed again, to your own handler instead of answering it', placeholder: 'URL'},
	forwardRetries: {type: 'number', default: 5, range: {kind: 'int', min: 0, max: 100}, description: 'Retries of a forward that got no 2xx (exponential backoff with jitter)', placeholder: 'N'},
	answerDeadline: {type: 'string', default: formatCompactDuration(defaultAnswerDeadlineMs), range: {kind: 'duration', min: 1000, max: 30 * dayMs}, description: 'How long an answer (or forward) that fails for a transient reason is retried, from the event\'s arrival; then the apology is written', placeholder: 'DURATION'},
	finalMessageDeadline: {type: 'string', default: formatCompactDuration(defaultFinalDeadlineMs), range: {kind: 'duration', min: 1000, max: 30 * dayMs}, description: 'How long the final message (the apology) is retried until it lands, from the event\'s arrival', placeholder: 'DURATION'},
	probeInterval: {type: 'number', range: {kind: 'int', min: 1, max: 3_600_000, example: 30_000}},
	retryBackoff: {type: 'number', range: {kind: 'int', min: 1, max: 600_000, example: 5000}},
	forwardBackoff: {type: 'number', range: {kind: 'int', min: 1, max: 60_000, example: 500}},
} satisfies Record<string, FlagSpec>;

/** Drops the keys whose value is undefined (the options type is exact-optional). */
function defined<T extends Record<string, unknown>>(record: T): {[K in keyof T]: Exclude<T[K], undefined>} {
	return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as {[K in keyof T]: Exclude<T[K], undefined>};
}

/** The flags serve and listen share, declared once (in serveFlags): the store, the answer or forward, their limits. */
export const receivingFlags = {
	concurrency: serveFlags.concurrency,
	drainTimeout: serveFlags.drainTimeout,
	dataDir: serveFlags.dataDir,
	allowSharedDataDir: serveFlags.allowSharedDataDir,
	retention: serveFlags.retention,
	maxEvents: serveFlags.maxEvents,
	maxBacklog: serveFlags.maxBacklog,
	platformRate: serveFlags.platformRate,
	forwardTo: serveFlags.forwardTo,
	forwardRetries: serveFlags.forwardRetries,
	answerDeadline: serveFlags.answerDeadline,
	finalMessageDeadline: serveFlags.finalMessageDeadline,
	probeInterval: serveFlags.probeInterval,
	retryBackoff: serveFlags.retryBackoff,
	forwardBackoff: serveFlags.forwardBackoff,
} satisfies Record<string, FlagSpec>;

/** The shared part of serve's and listen's options. */
export function parseReceiving(input: CommandInput): Omit<ReceivingOptions, 'toleranceSeconds'> {
	const flags = readFlags(receivingFlags, input);
	// Without --data-dir or PLATFORM_TUI_DATA_DIR, run uses the app's data folder.
	const {dataDir, redisUrl} = parseStore(input.flags, input.env);
	if (flags.finalMessageDeadline < flags.answerDeadline) {
		badFlag('finalMessageDeadline', `a duration no shorter than --answer-deadline (${formatCompactDuration(flags.answerDeadline)}): the apology comes after the answer's deadline`, input.flags.finalMessageDeadline);
	}

	return {
		concurrency: flags.concurrency,
		drainTimeoutMs: flags.drainTimeout,
		retentionMs: flags.retention,
		maxEvents: flags.maxEvents,
		maxBacklog: flags.maxBacklog,
		forwardRetries: flags.forwardRetries,
		answerDeadlineMs: flags.answerDeadline,
		finalMessageDeadlineMs: flags.finalMessageDeadline,
		...(flags.allowSharedDataDir ? {allowSharedDataDir: true} : {}),
		...defined({dataDir, redisUrl, platformRate: flags.platformRate, forwardTo: flags.forwardTo, probeIntervalMs: flags.probeInterval, retryBackoffMs: flags.retryBackoff, forwardBackoffMs: flags.forwardBackoff}),
	};
}

export function parseServe(input: CommandInput): ServeOptions {
	const flags = readFlags(serveFlags, input);
	const receiving = parseReceiving(input);
	if (flags.redisWaitReplicas > 0 && /^rediss?\+cluster:/i.test(receiving.redisUrl ?? '')) {
		// WAIT counts the replicas of the node it is sent to; a Cluster spreads keys over several.
		badFlag('redisWaitReplicas', 'left out with a Redis Cluster (WAIT confirms one node\'s replicas only)', flags.redisWaitReplicas);
	}

	return {
		...receiving,
		port: flags.port,
		host: flags.host,
		toleranceSeconds: flags.tolerance / 1000,
		adminHost: flags.adminHost,
		...(flags.allowVolatileRedis ? {allowVolatileRedis: true} : {}),
		...(flags.redisWaitReplicas > 0 ? {redisWaitReplicas: flags.redisWaitReplicas, redisWaitTimeoutMs: flags.redisWaitTimeout} : {}),
		...defined({adminPort: flags.adminPort, exitOnUnreadyMs: flags.exitOnUnready}),
	};
}
