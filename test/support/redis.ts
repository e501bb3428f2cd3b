/**
 * A real Redis for the Redis suites: a throwaway `redis-server` on a free loopback port (no
 * persistence), or the server named by PLATFORM_TUI_TEST_REDIS_URL. Without either the suites are
 * skipped with one printed line — unless PLATFORM_TUI_REQUIRE_REDIS=1 (CI), then they fail.
 */
import {type ChildProcess, spawn, spawnSync} from 'node:child_process';
import {randomBytes} from 'node:crypto';
import {Socket} from 'node:net';
import {setTimeout as sleep} from 'node:timers/promises';
import {freePort} from './free-port.js';

export const externalRedisUrl = process.env.PLATFORM_TUI_TEST_REDIS_URL || undefined;
export const redisRequired = process.env.PLATFORM_TUI_REQUIRE_REDIS === '1';
export const hasRedisServer = spawnSync('redis-server', ['--version'], {stdio: 'ignore'}).status === 0;

/** Why the Redis suites cannot run here, or undefined when they can. */
export const redisSkipReason: string | undefined = externalRedisUrl !== undefined || hasRedisServer
	? undefined
	: 'Redis suites skipped: no redis-server on PATH and PLATFORM_TUI_TEST_REDIS_URL is not set.';

if (redisSkipReason !== undefined) {
	if (redisRequired) {
		throw new Error(`${redisSkipReason} PLATFORM_TUI_REQUIRE_REDIS=1 makes this a failure.`);
	}

	console.log(redisSkipReason);
}

export type TestRedis = {
	url: string;
	/** A queue name no other test uses (tests may share one external Redis). */
	queueName(): string;
	stop(): Promise<void>;
	/** The port of a throwaway server (undefined for an external one). */
	port?: number;
	/** The server process (throwaway servers only): for tests that kill Redis. */
	process?: ChildProcess;
};

async function answersPing(port: number): Promise<boolean> {
	return new Promise(resolve => {
		const socket = new Socket();
		socket.setTimeout(500);
		socket.once('data', data => {
			socket.destroy();
			// +PONG, or -NOAUTH when a password is set: either way the server is up.
			resolve(/PONG|NOAUTH/.test(data.toString()));
		});
		socket.once('error', () => {
			resolve(false);
		});
		socket.once('timeout', () => {
			socket.destroy();
			resolve(false);
		});
		socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
	});
}

function uniqueQueue(): string {
	return `test-${randomBytes(6).toString('hex')}`;
}

/** Starts a throwaway server (or returns the external one when no options need a server of our own). */
export async function startRedis(options: {password?: string; user?: string; forceLocal?: boolean} = {}): Promise<TestRedis> {
	const needsOwn = options.password !== undefined || options.forceLocal === true;
	if (externalRedisUrl !== undefined && (!needsOwn || !hasRedisServer)) {
		return {url: externalRedisUrl, queueName: uniqueQueue, stop: async () => Promise.resolve()};
	}

	const port = await freePort();
	const args = ['--save', '', '--appendonly', 'no', '--port', String(port), '--bind', '127.0.0.1'];
	if (options.password !== undefined && options.user === undefined) {
		args.push('--requirepass', options.password);
	}

	if (options.password !== undefined && options.user !== undefined) {
		args.push('--user', options.user, 'on', `>${options.password}`, '~*', '&*', '+@all', '--user', 'default', 'off');
	}

	const child = spawn('redis-server', args, {stdio: ['ignore', 'ignore', 'pipe']});
	let stderr = '';
	child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
		stderr += chunk;
	});
	const exited = new Promise<void>(resolve => child.once('exit', () => {
		resolve();
	}));
	const deadline = Date.now() + 10_000;
	while (!await answersPing(port)) {
		if (Date.now() > deadline || child.exitCode !== null) {
			child.kill('SIGKILL');
			throw new Error(`redis-server did not start on port ${port}: ${stderr}`);
		}

		await sleep(20);
	}

	const auth = options.password === undefined ? '' : `${options.user ?? ''}:${encodeURIComponent(options.password)}@`;
	return {
		url: `redis://${auth}127.0.0.1:${port}`,
		port,
		process: child,
		queueName: uniqueQueue,
		async stop() {
			if (child.exitCode === null && child.signalCode === null) {
				child.kill('SIGKILL');
				await exited;
			}
		},
	};
}
