/**
 * Who holds a claim or the owner lock: a process id and a token drawn when the journal opened.
 * A holder is alive while its process exists; a record with our own pid but a token no journal of
 * this process drew is left by an earlier process that had the same pid (pid 1 in a container).
 */
import {randomBytes} from 'node:crypto';
import {errorCode} from '../../format/value.js';

export type Holder = {pid: number; token: string; at: string};

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

export function holderAlive(holder: Holder): boolean {
	if (holder.pid === process.pid) {
		return liveTokens.has(holder.token);
	}

	return processAlive(holder.pid);
}

export function isHolder(value: unknown): value is Holder {
	const record = value as Partial<Holder> | undefined;
	return typeof record?.pid === 'number' && typeof record.token === 'string';
}
