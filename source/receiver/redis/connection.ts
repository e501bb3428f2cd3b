import {Cluster, Redis, type RedisOptions} from 'ioredis';
import {errorMessage} from '../../format/value.js';
import {maskUrl} from '../../format/secret.js';
import {settlesWithin} from '../drain.js';
import {RedisError} from './errors.js';
import {parseRedisTarget, type RedisTarget} from './target.js';

/** A connection to one server (or a Sentinel-watched primary) or to a Cluster. */
export type RedisClient = Redis | Cluster;

/** How long opening a connection may take before Redis counts as unreachable. */
export const defaultConnectTimeoutMs = 5000;

/** How long one command of the producer connection may wait before `accept` gives up (→ 503). */
export const defaultCommandTimeoutMs = 3000;

export type ConnectOptions = {
	url: string;
	connectTimeoutMs?: number;
	/** The producer's command timeout, ms (default `defaultCommandTimeoutMs`). */
	commandTimeoutMs?: number;
	/** Extra TLS options (a private CA, …) for `rediss://` URLs. */
	tls?: RedisOptions['tls'];
	/** Reports connection errors after the first connect (Redis went away, came back). */
	onError?: (error: Error) => void;
};

/**
 * The two kinds of connection BullMQ needs. `producer` fails fast (no offline queue, one retry, a
 * command timeout) so an ack never hangs while Redis is down; `worker` waits for ever
 * (`maxRetriesPerRequest: null`, as BullMQ requires for blocking commands) and reconnects by itself.
 */
export type ConnectionKind = 'producer' | 'worker';

function optionsFor(kind: ConnectionKind, options: ConnectOptions): RedisOptions {
	const common: RedisOptions = {
		lazyConnect: true,
		connectTimeout: options.connectTimeoutMs ?? defaultConnectTimeoutMs,
		connectionName: `platform-tui-${kind}`,
		// Reconnect quickly at first, then at most every 2 s: a restarted Redis is found soon.
		retryStrategy: (times: number) => Math.min(times * 100, 2000),
	};
	if (options.tls !== undefined) {
		common.tls = options.tls;
	}

	return kind === 'producer'
		? {...common, enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: options.commandTimeoutMs ?? defaultCommandTimeoutMs}
		: {...common, maxRetriesPerRequest: null};
}

/** The target of a Redis URL; throws `redis-url-invalid` unless it is one of the forms of target.ts. */
export function checkRedisUrl(url: string): RedisTarget {
	const target = parseRedisTarget(url);
	if (target === undefined) {
		throw new RedisError('redis-url-invalid', {url: maskUrl(url)}, `Not a Redis URL: ${maskUrl(url)}`);
	}

	return target;
}

function tlsOf(target: RedisTarget, options: ConnectOptions): RedisOptions['tls'] | undefined {
	return options.tls ?? (target.tls ? {} : undefined);
}

/**
 * When to ask the Sentinels again within one attempt to connect. ioredis goes round them until
 * this says stop, and the first connect waits inside that: with no Sentinel answering and no end
 * to it, `serve` hung at start-up, silent and deaf to SIGTERM. Each attempt (its first round counts
 * from 1 again) now stops once `connectTimeoutMs` has passed: at start-up that is redis-unreachable,
 * as for the other URL forms; later, ioredis's own reconnecting (`retryStrategy`) starts the next
 * attempt, so a connection that was up keeps coming back for ever.
 */
function sentinelRetries(connectTimeoutMs: number): (times: number) => number | null {
	let started = Date.now();
	return (times: number) => {
		if (times === 1) {
			started = Date.now();
		}

		return Date.now() - started <= connectTimeoutMs ? Math.min(times * 100, 2000) : null;
	};
}

/** A client for the target (not connected yet: `lazyConnect`). */
function createClient(kind: ConnectionKind, target: RedisTarget, options: ConnectOptions): RedisClient {
	const base = optionsFor(kind, options);
	const tls = tlsOf(target, options);
	if (target.kind === 'single') {
		return new Redis(target.url, base);
	}

	const auth = {...(target.username ? {username: target.username} : {}), ...(target.password ? {password: target.password} : {})};
	if (target.kind === 'sentinel') {
		return new Redis({
			...base,
			...auth,
			sentinels: target.nodes,
			name: target.name,
			...(target.db === undefined ? {} : {db: target.db}),
			...(target.sentinelUsername ? {sentinelUsername: target.sentinelUsername} : {}),
			...(target.sentinelPassword ? {sentinelPassword: target.sentinelPassword} : {}),
			...(tls === undefined ? {} : {tls, enableTLSForSentinelMode: true}),
			// Learn of a failover from the Sentinels at once rather than at the next broken connection.
			failoverDetector: true,
			sentinelRetryStrategy: sentinelRetries(base.connectTimeout ?? defaultConnectTimeoutMs),
		});
	}

	const {retryStrategy, lazyConnect, enableOfflineQueue, ...redisOptions} = base;
	return new Cluster(target.nodes, {
		lazyConnect,
		...(enableOfflineQueue === undefined ? {} : {enableOfflineQueue}),
		clusterRetryStrategy: retryStrategy,
		redisOptions: {...redisOptions, ...auth, ...(tls === undefined ? {} : {tls})},
		// ioredis's recipe for TLS clusters (managed services): keep the host names the nodes announce,
		// so each node's certificate is checked against the name it was issued for.
		...(tls === undefined ? {} : {dnsLookup: (address: string, callback: (error: Error | null, address: string) => void) => {
			callback(null, address);
		}}),
	});
}

function isAuthError(message: string): boolean {
	return /WRONGPASS|NOAUTH|invalid password|invalid username-password/i.test(message);
}

/**
 * Opens one connection and waits until it is ready. A refused connection, a timeout, a TLS or an
 * authentication failure ends the attempt (no endless retrying) with a `RedisError`.
 */
export async function connect(kind: ConnectionKind, options: ConnectOptions): Promise<RedisClient> {
	const client = createClient(kind, checkRedisUrl(options.url), options);
	let lastError: Error | undefined;
	const remember = (error: Error) => {
		lastError = error;
	};

	client.on('error', remember);
	try {
		await client.connect();
		// A server with requirepass accepts the connection and refuses the first command instead.
		await client.ping();
	} catch (error) {
		client.disconnect();
		const reason = errorMessage(lastError ?? error);
		const url = maskUrl(options.url);
		if (isAuthError(reason) || isAuthError(errorMessage(error))) {
			throw new RedisError('redis-auth', {url}, `Redis at ${url} refused the credentials: ${reason}`, {cause: error});
		}

		throw new RedisError('redis-unreachable', {url, reason}, `Redis at ${url} is unreachable: ${reason}`, {cause: error});
	} finally {
		client.off('error', remember);
	}

	// ioredis prints unhandled 'error' events; after the first connect, errors go to the caller.
	client.on('error', (error: Error) => {
		options.onError?.(error);
	});
	return client;
}

/** Closes a connection politely, or at once when Redis does not answer. */
export async function disconnect(client: RedisClient): Promise<void> {
	if (client.status === 'end') {
		return;
	}

	// A refused quit (already gone) settles it as well: nothing to close politely.
	await settlesWithin(client.quit(), 500);
	client.disconnect();
}
