/**
 * The chaos run's fault kinds besides SIGKILL: what each does to the platform (or to the forward
 * handler) while it lasts, and how it is cleared. serve always reaches the platform through a TCP
 * proxy of the run's own, so "unreachable" is a closed port (connections refused), as an outage
 * looks from outside. `disk-full` puts serve's data directory on a tmpfs of its own
 * (disk-fault.ts), filled to its last byte while the fault lasts; the run prints one line and skips
 * it when the tmpfs cannot be mounted. `slow-creates` and `slow-writes` make the platform carry
 * out every message-log create (or final-message write) at once and answer it 16 s late, past a
 * read's 15 s deadline (the local platform's `slow` fault).
 */
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http';
import {createConnection, createServer as createTcpServer, type Server as TcpServer, type Socket} from 'node:net';
import type {AddressInfo} from 'node:net';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import type {DiskFault} from './disk-fault.js';

/** The run's fault targets; `disk` only for a kind that asks for one (`disk: true`), mounted for its run. */
export type FaultContext = {platform: LocalPlatform; proxy: PlatformProxy; handler: ForwardHandler; disk?: DiskFault};

export type FaultKind = {
	name: string;
	/** What serve sees, in a few words (printed with the figures). */
	description: string;
	/** serve runs with --forward-to the run's handler instead of answering. */
	forward?: boolean;
	/** Why the kind cannot run here (printed as one line, and the kind skipped). */
	skip?: () => string | undefined;
	/** serve's data directory goes on a disk of the run's own (`context.disk`), which the kind fills. */
	disk?: boolean;
	start(context: FaultContext): Promise<void>;
	stop(context: FaultContext): Promise<void>;
};

export const faultKinds: readonly FaultKind[] = [
	{
		name: 'unreachable',
		description: 'platform refuses connections',
		async start({proxy}) {
			await proxy.close();
		},
		async stop({proxy}) {
			await proxy.open();
		},
	},
	{
		name: '500',
		description: 'platform answers 500 to every call',
		start({platform}) {
			platform.setFaults({rules: [{operation: '*', kind: '500'}]});
			return Promise.resolve();
		},
		stop({platform}) {
			platform.setFaults({rules: []});
			return Promise.resolve();
		},
	},
	{
		name: '429',
		description: 'platform answers 429 (Retry-After 5) to every call',
		start({platform}) {
			platform.setFaults({faultRetryAfterSeconds: 5, rules: [{operation: '*', kind: '429'}]});
			return Promise.resolve();
		},
		stop({platform}) {
			platform.setFaults({faultRetryAfterSeconds: 1, rules: []});
			return Promise.resolve();
		},
	},
	{
		name: 'slow',
		description: 'platform answers every call 16 s late',
		start({platform}) {
			platform.setFaults({latencyMs: 16_000});
			return Promise.resolve();
		},
		stop({platform}) {
			platform.setFaults({latencyMs: 0});
			return Promise.resolve();
		},
	},
	{
		name: 'slow-creates',
		description: 'platform makes every message log at once and answers the create 16 s late',
		start({platform}) {
			platform.setFaults({slowMs: 16_000, rules: [{operation: 'createMessageLog', kind: 'slow'}]});
			return Promise.resolve();
		},
		stop({platform}) {
			platform.setFaults({rules: []});
			return Promise.resolve();
		},
	},
	{
		name: 'slow-writes',
		description: 'platform writes every final message at once and answers the write 16 s late',
		start({platform}) {
			platform.setFaults({slowMs: 16_000, rules: [{operation: 'modifyMessage', kind: 'slow'}]});
			return Promise.resolve();
		},
		stop({platform}) {
			platform.setFaults({rules: []});
			return Promise.resolve();
		},
	},
	{
		name: 'forward-down',
		description: 'the --forward-to handler refuses connections',
		forward: true,
		async start({handler}) {
			await handler.close();
		},
		async stop({handler}) {
			await handler.open();
		},
	},
	diskFullThenFreed(),
];

/** The disk under serve's journal full to its last byte from `start` until `stop`, then freed. */
function diskFullThenFreed(): FaultKind {
	let held: {free(): void; done: Promise<void>} | undefined;
	return {
		name: 'disk-full',
		description: 'the disk under serve\'s journal full to its last byte, then freed',
		disk: true,
		start({disk}) {
			if (disk === undefined) {
				return Promise.reject(new Error('disk-full: no disk was mounted for the run'));
			}

			let free: () => void = () => undefined;
			const freed = new Promise<void>(resolve => {
				free = resolve;
			});
			// Fills the disk at once; the filler goes when `free` is called.
			held = {free, done: disk.fullThenFreed(async () => freed)};
			return Promise.resolve();
		},
		async stop() {
			held?.free();
			await held?.done;
			held = undefined;
		},
	};
}

/** Listens on loopback at `port` (0: a free one; again: the same one after a close); resolves with the port. */
async function listenOn(server: TcpServer | Server, port: number): Promise<number> {
	await new Promise<void>((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, '127.0.0.1', () => {
			resolve();
		});
	});
	return (server.address() as AddressInfo).port;
}

/** Stops listening; resolves once every connection is gone. */
async function closeServer(server: TcpServer | Server): Promise<void> {
	await new Promise<void>(resolve => {
		server.close(() => {
			resolve();
		});
	});
}

/** A TCP proxy to the platform on a port of its own; closed, it refuses connections and cuts the open ones. */
export class PlatformProxy {
	private server: TcpServer | undefined;
	private readonly sockets = new Set<Socket>();
	private port = 0;

	constructor(private readonly target: URL) {}

	get url(): string {
		return `http://127.0.0.1:${this.port}`;
	}

	async open(): Promise<void> {
		const server = createTcpServer(client => {
			const upstream = createConnection({host: this.target.hostname, port: Number(this.target.port)});
			for (const socket of [client, upstream]) {
				this.sockets.add(socket);
				socket.on('close', () => this.sockets.delete(socket));
				socket.on('error', () => undefined);
			}

			client.pipe(upstream).pipe(client);
			client.on('close', () => upstream.destroy());
			upstream.on('close', () => client.destroy());
		});
		this.port = await listenOn(server, this.port);
		this.server = server;
	}

	async close(): Promise<void> {
		const {server} = this;
		this.server = undefined;
		for (const socket of this.sockets) {
			socket.destroy();
		}

		if (server !== undefined) {
			await closeServer(server);
		}
	}
}

/** The developer's handler for --forward-to: answers 200 and counts each event id it answered. */
export class ForwardHandler {
	readonly answered = new Map<string, number>();
	private server: Server | undefined;
	private port = 0;

	get url(): string {
		return `http://127.0.0.1:${this.port}/hook`;
	}

	async open(): Promise<void> {
		const server = createServer((request: IncomingMessage, response: ServerResponse) => {
			request.resume();
			request.on('end', () => {
				const id = String(request.headers['x-platform-id'] ?? '');
				this.answered.set(id, (this.answered.get(id) ?? 0) + 1);
				response.writeHead(200, {'content-type': 'application/json'}).end('{"ok":true}');
			});
		});
		this.port = await listenOn(server, this.port);
		this.server = server;
	}

	async close(): Promise<void> {
		const {server} = this;
		this.server = undefined;
		if (server === undefined) {
			return;
		}

		const closing = closeServer(server);
		server.closeAllConnections();
		await closing;
	}
}
