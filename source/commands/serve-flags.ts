/** `serve`'s flags and their parse (the command itself is serve.tsx). */
import {parseStore, storeFlags} from './events/store-flags.js';
import {formatCompactDuration} from '../format/duration.js';
import type {CommandInput, FlagSpec} from './types.js';
import {badFlag, durationFlag, intFlag, portFlag, secondsFlag, stringFlag, urlFlag} from './validators.js';

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

const dayMs = 24 * 60 * 60 * 1000;

export const serveFlags = {
	port: {type: 'number', default: 8080, description: 'Port to listen on; 0 picks a free one', placeholder: 'N'},
	host: {type: 'string', default: '127.0.0.1', description: 'Address to listen on (0.0.0.0 for every interface)', placeholder: 'HOST'},
	concurrency: {type: 'number', default: 8, description: 'Events processed at once', placeholder: 'N'},
	tolerance: {type: 'number', default: 300, description: 'Largest age of X-Platform-Created-At, seconds', placeholder: 'SECONDS'},
	drainTimeout: {type: 'number', default: 25, description: 'On Ctrl+C or SIGTERM, time running jobs get to finish, seconds', placeholder: 'SECONDS'},
	dataDir: storeFlags.dataDir,
	retention: {type: 'string', default: '7d', description: 'How long events are kept (at least 24h: their ids are the exactly-once keys)', placeholder: 'DURATION'},
	maxEvents: {type: 'number', default: 100_000, description: 'Most events kept; the oldest finished go first, and past N unfinished ones deliveries get 503', placeholder: 'N'},
	redis: {...storeFlags.redis, description: 'Share events and work with other replicas through Redis (env PLATFORM_REDIS_URL)'},
	allowVolatileRedis: {type: 'boolean', default: false, description: 'Run on a Redis that may lose acknowledged events (AOF off, or a maxmemory-policy other than noeviction); serve warns on every status line'},
	redisWaitReplicas: {type: 'number', default: 0, description: 'Acknowledge an event only once N Redis replicas have it (WAIT); 503 when they do not confirm in time', placeholder: 'N'},
	redisWaitTimeout: {type: 'number', default: 1, description: 'How long --redis-wait-replicas waits for the replicas, seconds', placeholder: 'SECONDS'},
	adminPort: {type: 'number', description: 'Serve /livez, /readyz and /metrics on this port (default off; 0 picks a free one)', placeholder: 'N'},
	adminHost: {type: 'string', default: '127.0.0.1', description: 'Address of the admin listener', placeholder: 'HOST'},
	exitOnUnready: {type: 'number', description: 'Exit 1 after not being ready this long, so a supervisor restarts serve', placeholder: 'SECONDS'},
	maxBacklog: {type: 'number', default: 10_000, description: 'Unfinished events (per cluster with --redis) above which deliveries get 503 and are not stored', placeholder: 'N'},
	platformRate: {type: 'string', description: 'Most platform calls per second (per cluster with --redis); default unlimited', placeholder: 'N'},
	forwardTo: {type: 'string', description: 'POST each event, signed again, to your own handler instead of answering it', placeholder: 'URL'},
	forwardRetries: {type: 'number', default: 5, description: 'Retries of a forward that got no 2xx (exponential backoff with jitter)', placeholder: 'N'},
	answerDeadline: {type: 'string', default: '10m', description: 'How long an answer (or forward) that fails for a transient reason is retried, from the event\'s arrival; then the apology is written', placeholder: 'DURATION'},
	finalMessageDeadline: {type: 'string', default: '24h', description: 'How long the final message (the apology) is retried until it lands, from the event\'s arrival', placeholder: 'DURATION'},
	probeInterval: {type: 'number'},
	retryBackoff: {type: 'number'},
	forwardBackoff: {type: 'number'},
} satisfies Record<string, FlagSpec>;

function rateFlag(flags: Record<string, unknown>): number | undefined {
	const raw = flags.platformRate;
	if (raw === undefined) {
		return undefined;
	}

	const rate = Number(raw);
	if (!Number.isFinite(rate) || rate <= 0 || rate > 100_000) {
		badFlag('platformRate', 'a number of calls per second above 0 (e.g. 5 or 0.5)', raw);
	}

	return rate;
}

export function parseServe({flags, env}: CommandInput): ServeOptions {
	// Without --data-dir or PLATFORM_TUI_DATA_DIR, run uses the app's data folder.
	const {dataDir, redisUrl} = parseStore(flags, env);
	const adminPort = flags.adminPort === undefined ? undefined : portFlag(flags, 'adminPort', 0);
	const exitOnUnreadyMs = flags.exitOnUnready === undefined ? undefined : secondsFlag(flags, 'exitOnUnready', {max: 86_400, fallbackSeconds: 0});
	const platformRate = rateFlag(flags);
	const redisWaitReplicas = intFlag(flags, 'redisWaitReplicas', {min: 0, max: 100, fallback: 0});
	if (redisWaitReplicas > 0 && /^rediss?\+cluster:/i.test(redisUrl ?? '')) {
		// WAIT counts the replicas of the node it is sent to; a Cluster spreads keys over several.
		badFlag('redisWaitReplicas', 'left out with a Redis Cluster (WAIT confirms one node\'s replicas only)', redisWaitReplicas);
	}

	const forwardTo = urlFlag(flags, 'forwardTo', {protocols: ['http:', 'https:']});
	const probeIntervalMs = flags.probeInterval === undefined ? undefined : intFlag(flags, 'probeInterval', {min: 1, max: 3_600_000, fallback: 30_000});
	const retryBackoffMs = flags.retryBackoff === undefined ? undefined : intFlag(flags, 'retryBackoff', {min: 1, max: 600_000, fallback: 5000});
	const answerDeadlineMs = durationFlag(flags, 'answerDeadline', {min: 1000, max: 30 * dayMs, fallbackMs: 10 * 60 * 1000});
	const finalMessageDeadlineMs = durationFlag(flags, 'finalMessageDeadline', {min: 1000, max: 30 * dayMs, fallbackMs: dayMs});
	if (finalMessageDeadlineMs < answerDeadlineMs) {
		badFlag('finalMessageDeadline', `a duration no shorter than --answer-deadline (${formatCompactDuration(answerDeadlineMs)}): the apology comes after the answer's deadline`, flags.finalMessageDeadline);
	}

	const forwardBackoffMs = flags.forwardBackoff === undefined ? undefined : intFlag(flags, 'forwardBackoff', {min: 1, max: 60_000, fallback: 500});
	return {
		port: portFlag(flags, 'port', 8080),
		host: stringFlag(flags, 'host') ?? '127.0.0.1',
		concurrency: intFlag(flags, 'concurrency', {min: 1, max: 1000, fallback: 8}),
		toleranceSeconds: secondsFlag(flags, 'tolerance', {max: 86_400, fallbackSeconds: 300}) / 1000,
		drainTimeoutMs: secondsFlag(flags, 'drainTimeout', {max: 3600, fallbackSeconds: 25, allowZero: true}),
		...(dataDir ? {dataDir} : {}),
		retentionMs: durationFlag(flags, 'retention', {min: dayMs, max: 3650 * dayMs, fallbackMs: 7 * dayMs}),
		maxEvents: intFlag(flags, 'maxEvents', {min: 1000, max: 100_000_000, fallback: 100_000}),
		...(redisUrl ? {redisUrl} : {}),
		...(flags.allowVolatileRedis === true ? {allowVolatileRedis: true} : {}),
		...(redisWaitReplicas > 0 ? {redisWaitReplicas, redisWaitTimeoutMs: secondsFlag(flags, 'redisWaitTimeout', {max: 60, fallbackSeconds: 1})} : {}),
		...(adminPort === undefined ? {} : {adminPort}),
		adminHost: stringFlag(flags, 'adminHost') ?? '127.0.0.1',
		...(exitOnUnreadyMs === undefined ? {} : {exitOnUnreadyMs}),
		maxBacklog: intFlag(flags, 'maxBacklog', {min: 1, max: 100_000_000, fallback: 10_000}),
		...(platformRate === undefined ? {} : {platformRate}),
		...(forwardTo ? {forwardTo} : {}),
		forwardRetries: intFlag(flags, 'forwardRetries', {min: 0, max: 100, fallback: 5}),
		answerDeadlineMs,
		finalMessageDeadlineMs,
		...(retryBackoffMs === undefined ? {} : {retryBackoffMs}),
		...(probeIntervalMs === undefined ? {} : {probeIntervalMs}),
		...(forwardBackoffMs === undefined ? {} : {forwardBackoffMs}),
	};
}
