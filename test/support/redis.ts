/**
 * A real Redis for the Redis suites: a throwaway `redis-server` on a free loopback port (no
 * persistence), or the server named by PLATFORM_TUI_TEST_REDIS_URL. Without either the suites are
 * skipped with one printed line — unless PLATFORM_TUI_REQUIRE_REDIS=1 (CI), then they fail.
 */
import {type ChildProcess, spawn, spawnSync} from 'node:child_process';
import {randomBytes} from 'node:crypto';
import {mkdtempSync, rmSync} from 'node:fs';
import {Socket} from 'node:net';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
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
	/** The CA file that signed the server's certificate (`tls` servers only). */
	caFile?: string;
	/** A queue name no other test uses (tests may share one external Redis). */
	queueName(): string;
	stop(): Promise<void>;
	/** The port of a throwaway server (undefined for an external one). */
	port?: number;
	/** The server process (throwaway servers only): for tests that kill Redis. */
	process?: ChildProcess;
};

/**
 * Does this redis-server build speak TLS (Debian's does)? A build without it refuses `tls-port` as
 * a bad directive; one with it stops at the made-up directive after it. Nothing starts either way.
 */
export function redisHasTls(): boolean {
	const probe = spawnSync('redis-server', ['--tls-port', '0', '--port', '0', '--platform-tui-probe', '1'], {encoding: 'utf8', timeout: 5000});
	const said = `${probe.stdout}${probe.stderr}`;
	return said.includes('platform-tui-probe') && !said.includes('\'tls-port');
}

/** A self-signed certificate for 127.0.0.1 in a temp dir (it is its own CA). */
function makeCertificate(): {dir: string; cert: string; key: string} {
	const dir = mkdtempSync(join(tmpdir(), 'platform-tui-redis-tls-'));
	const cert = join(dir, 'cert.pem');
	const key = join(dir, 'key.pem');
	const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], {encoding: 'utf8'});
	if (made.status !== 0) {
		throw new Error(`openssl could not make a certificate: ${made.stderr}`);
	}

	return {dir, cert, key};
}

async function answersPing(port: number, tls: boolean): Promise<boolean> {
	if (tls) {
		// A TLS server takes connections once it is up; the handshake is the tests' business.
		return new Promise(resolve => {
			const socket = new Socket();
			socket.once('connect', () => {
				socket.destroy();
				resolve(true);
			});
			socket.once('error', () => {
				resolve(false);
			});
			socket.connect(port, '127.0.0.1');
		});
	}

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
export type StartRedisOptions = {
	password?: string;
	user?: string;
	forceLocal?: boolean;
	/** Listen on this port (to restart a server where it was). */
	port?: number;
	/** Only TLS (`rediss://`), with a self-signed certificate; clients need not present one. */
	tls?: boolean;
	/** AOF on (`appendonly yes`, in a temp dir) instead of no persistence at all. */
	appendonly?: boolean;
	/**
	 * Keep the data in this directory (the caller's; left in place on stop): a server killed and
	 * started again on it finds what it persisted. Implies a server of our own.
	 */
	dir?: string;
	/** More server arguments (e.g. `--rename-command CONFIG ""`, as managed Redis services do). */
	args?: string[];
};

/** Kills a server and every process it forked (its process group), whether or not it is still running. */
function killGroup(child: ChildProcess): void {
	if (child.pid === undefined) {
		return;
	}

	try {
		process.kill(-child.pid, 'SIGKILL');
	} catch {
		// The group is gone already.
	}
}

/**
 * Removes a server's folders. A killed server's forked child (a snapshot for a replica, an AOF
 * rewrite) may still be writing its temporary file there for a moment: ENOTEMPTY is retried.
 */
function removeFolders(certificate: {dir: string} | undefined, dataDir: string | undefined): void {
	for (const folder of [certificate?.dir, dataDir]) {
		if (folder !== undefined) {
			rmSync(folder, {recursive: true, force: true, maxRetries: 10, retryDelay: 100});
		}
	}
}

/** The server's arguments for one port. */
function serverArgs(options: StartRedisOptions, port: number, certificate: {cert: string; key: string} | undefined, dataDir: string | undefined): string[] {
	const dir = options.dir ?? dataDir;
	const args = ['--save', '', '--appendonly', options.appendonly === true ? 'yes' : 'no', '--bind', '127.0.0.1', ...(dir === undefined ? [] : ['--dir', dir]), ...(options.args ?? [])];
	if (certificate === undefined) {
		args.push('--port', String(port));
	} else {
		args.push('--port', '0', '--tls-port', String(port), '--tls-cert-file', certificate.cert, '--tls-key-file', certificate.key, '--tls-ca-cert-file', certificate.cert, '--tls-auth-clients', 'no');
	}

	if (options.password !== undefined && options.user === undefined) {
		args.push('--requirepass', options.password);
	}

	if (options.password !== undefined && options.user !== undefined) {
		args.push('--user', options.user, 'on', `>${options.password}`, '~*', '&*', '+@all', '--user', 'default', 'off');
	}

	return args;
}

/** How many ports to try when another program takes the free port first. */
const portAttempts = 5;

/**
 * Starts redis-server and waits until it answers. redis-server cannot listen on port 0 and report
 * the port it got, so a free port is picked and, when another program takes it before the server
 * binds it ("Address already in use"), the next one is tried: at most `portAttempts` times. A port
 * the caller names (a restart where the server was) is used as is.
 */
async function spawnServer(options: StartRedisOptions, certificate: {cert: string; key: string} | undefined, dataDir: string | undefined): Promise<{child: ChildProcess; port: number; exited: Promise<void>}> {
	for (let attempt = 1; ; attempt++) {
		const port = options.port ?? await freePort();
		// A process group of its own: stop() ends the server with the children it forks (an AOF
		// rewrite, a snapshot for a replica), which would otherwise go on writing in its folder.
		const child = spawn('redis-server', serverArgs(options, port, certificate, dataDir), {stdio: ['ignore', 'pipe', 'pipe'], detached: true});
		let said = '';
		const collect = (chunk: string) => {
			said += chunk;
		};

		child.stdout.setEncoding('utf8').on('data', collect);
		child.stderr.setEncoding('utf8').on('data', collect);
		const exited = new Promise<void>(resolve => child.once('exit', () => {
			resolve();
		}));
		const deadline = Date.now() + 10_000;
		let up = false;
		while (!up && Date.now() <= deadline && child.exitCode === null) {
			// Its own log line first: a server another test started on the same port answers too.
			up = said.includes('Ready to accept connections') && await answersPing(port, certificate !== undefined);
			if (!up) {
				await sleep(20);
			}
		}

		if (up && child.exitCode === null) {
			// Nothing reads the log from here on: stop collecting it.
			child.stdout.off('data', collect).resume();
			child.stderr.off('data', collect).resume();
			return {child, port, exited};
		}

		child.kill('SIGKILL');
		await exited;
		if (!/already in use/i.test(said) || options.port !== undefined || attempt >= portAttempts) {
			throw new Error(`redis-server did not start on port ${port}: ${said}`);
		}
	}
}

export async function startRedis(options: StartRedisOptions = {}): Promise<TestRedis> {
	const needsOwn = options.password !== undefined || options.forceLocal === true || options.port !== undefined || options.tls === true || options.appendonly === true || options.args !== undefined || options.dir !== undefined;
	if (externalRedisUrl !== undefined && (!needsOwn || !hasRedisServer)) {
		return {url: externalRedisUrl, queueName: uniqueQueue, stop: async () => Promise.resolve()};
	}

	const certificate = options.tls === true ? makeCertificate() : undefined;
	const dataDir = options.appendonly === true && options.dir === undefined ? mkdtempSync(join(tmpdir(), 'platform-tui-redis-data-')) : undefined;
	let server: Awaited<ReturnType<typeof spawnServer>>;
	try {
		server = await spawnServer(options, certificate, dataDir);
	} catch (error) {
		removeFolders(certificate, dataDir);
		throw error;
	}

	const {child, port, exited} = server;
	const auth = options.password === undefined ? '' : `${options.user ?? ''}:${encodeURIComponent(options.password)}@`;
	return {
		url: `${certificate === undefined ? 'redis' : 'rediss'}://${auth}127.0.0.1:${port}`,
		...(certificate === undefined ? {} : {caFile: certificate.cert}),
		port,
		process: child,
		queueName: uniqueQueue,
		async stop() {
			const running = child.exitCode === null && child.signalCode === null;
			killGroup(child);
			if (running) {
				await exited;
			}

			removeFolders(certificate, dataDir);
		},
	};
}
