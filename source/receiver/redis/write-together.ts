/**
 * The accepts of one event-loop turn go to Redis in one socket write. ioredis writes each command
 * to its socket at once, one system call per delivery, which under load was the largest single
 * cost of an acknowledgement in Redis mode; the socket is corked at the turn's first accept and
 * uncorked once the turn's I/O callbacks have run (setImmediate), so the scripts of the deliveries
 * read in that turn leave together. A cluster's commands go to its nodes' own connections: left
 * as they are.
 */
import type {Socket} from 'node:net';
import type {RedisClient} from './connection.js';

const corked = new WeakSet<Socket>();

export function writeTogether(client: RedisClient): void {
	const {stream} = client as {stream?: Socket};
	if (!stream || corked.has(stream) || !stream.writable) {
		return;
	}

	corked.add(stream);
	stream.cork();
	setImmediate(() => {
		corked.delete(stream);
		stream.uncork();
	});
}
