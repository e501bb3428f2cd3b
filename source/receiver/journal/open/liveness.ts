/**
 * Who holds a claim or the owner lock, and whether that process still lives.
 *
 * A process id alone cannot tell: in another PID namespace sharing the data directory (two
 * containers on one volume) the same number names another process or none, and after a restart a
 * pid is reused (a container's init is always pid 1). So every process that holds anything in a
 * journal listens on a Unix socket of its own in the journal's `holders` folder, named by a token
 * drawn when it opened the journal, and its records name that token. The holder is alive while a
 * connection to its socket is accepted: the kernel refuses it once the process is gone, whatever
 * namespace it ran in, and no later process can listen on that token. A record without a socket
 * (written by an older version, or a path too long for a socket) falls back to the process id.
 */
import {randomBytes} from 'node:crypto';
import {readdirSync, rmSync} from 'node:fs';
import {createConnection, createServer, type Server} from 'node:net';
import path from 'node:path';
import {errorCode} from '../../../format/value.js';
import {makePrivate, makePrivateDir} from '../../../private-files.js';

export type Holder = {pid: number; token: string; at: string; socket?: string; /** The owning command (`serve`, `listen`), in the owner record. */ command?: string};

/** Longest Unix socket path Linux and macOS take (sun_path less its terminating byte). */
const maxSocketPath = 103;

/** How long a holder's socket may take to accept before it counts as alive but busy. */
const connectTimeoutMs = 2000;

/** Tokens of the journals open in this process. */
const liveTokens = new Set<string>();

export function drawToken(): string {
	const token = randomBytes(8).toString('hex');
	liveTokens.add(token);
	return token;
}

export function dropToken(token: string): void {
	liveTokens.delete(token);
}

/** Listens on this holder's socket in `<journal>/holders`; resolves with the holder record and its release. */
export async function listenAsHolder(journalFolder: string, token: string): Promise<{holder: Holder; release: () => Promise<void>}> {
	const holder: Holder = {pid: process.pid, token, at: new Date().toISOString()};
	const folder = path.join(journalFolder, 'holders');
	const socket = path.join(folder, `${token}.sock`);
	if (Buffer.byteLength(socket) > maxSocketPath) {
		return {holder, release: async () => Promise.resolve()};
	}

	makePrivateDir(folder);
	const server: Server = createServer(connection => {
		// The asking side hangs up as soon as it connected: a write it no longer reads is no error.
		connection.on('error', () => undefined);
		connection.end(JSON.stringify({pid: process.pid}));
	});
	server.unref();
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(socket, () => {
			server.off('error', reject);
			resolve();
		});
	});
	// Its folder keeps others out; the socket itself is 0600 as every file there.
	makePrivate(socket);
	holder.socket = path.relative(journalFolder, socket);
	return {
		holder,
		release: async () => {
			await new Promise<void>(resolve => {
				server.close(() => {
					resolve();
				});
			});
			rmSync(socket, {force: true});
		},
	};
}

export function processAlive(pid: number): boolean {
	if (!Number.isInteger(pid) || pid <= 0) {
		return false;
	}

	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		// EPERM: it exists but belongs to another user.
		return errorCode(error) === 'EPERM';
	}
}

/** Whether the process `holder` names is alive (see the top of this file). */
export async function holderAlive(holder: Holder, journalFolder: string): Promise<boolean> {
	if (liveTokens.has(holder.token)) {
		return true;
	}

	if (typeof holder.socket === 'string') {
		return (await socketPid(path.resolve(journalFolder, holder.socket))) !== undefined;
	}

	// An old record: its pid, unless it is ours (then it is a dead process's with the same pid).
	return holder.pid !== process.pid && processAlive(holder.pid);
}

/**
 * The pid a holder's socket answers with, or undefined when nobody listens (ECONNREFUSED: the
 * holder died; ENOENT: released). No answer in time: a process is there (the kernel queued the
 * connection), busy: 0.
 */
async function socketPid(file: string): Promise<number | undefined> {
	return new Promise(resolve => {
		const connection = createConnection(file);
		let answer = '';
		const done = (pid: number | undefined) => {
			clearTimeout(timer);
			connection.destroy();
			resolve(pid);
		};

		const timer = setTimeout(done, connectTimeoutMs, 0);
		connection.setEncoding('utf8').on('data', (chunk: string) => {
			answer += chunk;
		});
		connection.once('end', () => {
			let pid: unknown;
			try {
				pid = (JSON.parse(answer) as {pid?: unknown}).pid;
			} catch {
				pid = 0;
			}

			done(typeof pid === 'number' ? pid : 0);
		});
		connection.once('error', (error: Error) => {
			const code = errorCode(error);
			done(code === 'ECONNREFUSED' || code === 'ENOENT' || code === 'ENOTSOCK' ? undefined : 0);
		});
	});
}

/** The pids of the processes whose holder sockets in `<journal>/holders` still accept (they have the journal open). */
export async function liveHolders(journalFolder: string): Promise<number[]> {
	let names: string[];
	try {
		names = readdirSync(path.join(journalFolder, 'holders')).filter(name => name.endsWith('.sock'));
	} catch {
		return [];
	}

	const pids = await Promise.all(names.map(async name => socketPid(path.join(journalFolder, 'holders', name))));
	return pids.filter(pid => pid !== undefined);
}
