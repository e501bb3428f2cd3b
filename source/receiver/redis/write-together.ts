/**
 * The accepts of one event-loop turn go to Redis in one socket write. ioredis writes each command
 * to its socket at once, one system call per delivery, which under load was the largest single
 * cost of an acknowledgement in Redis mode; the socket is corked at the turn's first accept and
 * uncorked once the turn's I/O callbacks have run (setImmediate), so the scripts of the deliveries
 * read in that turn leave together. Work gathered over the turn (record.ts) is sent by a `flush`
 * run just before the uncork. A cluster's commands go to its nodes' own connections: left as they
 * are, the flushes still run as the turn ends.
 */
import type {Socket} from 'node:net';
import type {RedisClient} from './connection.js';

const turns = new WeakMap<RedisClient, Array<() => void>>();

/** Corks the client's socket until this turn ends; `flush`, when given, runs as it ends, before the uncork. */
export function writeTogether(client: RedisClient, flush?: () => void): void {
	let flushes = turns.get(client);
	if (flushes === undefined) {
		const {stream} = client as {stream?: Socket};
		const corked = stream?.writable === true ? stream : undefined;
		corked?.cork();
		const list: Array<() => void> = [];
		turns.set(client, list);
		flushes = list;
		setImmediate(() => {
			turns.delete(client);
			try {
				for (const run of list) {
					run();
				}
			} finally {
				corked?.uncork();
			}
		});
	}

	if (flush !== undefined) {
		flushes.push(flush);
	}
}
