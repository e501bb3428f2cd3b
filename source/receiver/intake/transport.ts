/**
 * The HTTP side of the receiver: the node:http server (listen, close with a deadline), the
 * delivery headers read from rawHeaders, the body read under a size limit, and the lingering
 * close that lets an early answer (413, 400) reach a client still sending its body.
 */
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http';
import type {AddressInfo} from 'node:net';
import {sendJson} from '../../platform/json-response.js';
import {webhookHeaders} from '../../platform/webhook-signature.js';
import {settlesWithin} from '../drain.js';
import type {DeliveryHeaders} from './intake.js';

export type ListenOptions = {port?: number; host?: string};

export type ListenResult = {url: string; host: string; port: number};

export type RequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

/** How long and how much of an unwanted body is read and discarded after an early answer. */
export type LingerLimits = {maxMs: number; maxBytes: number};

export const defaultLinger: LingerLimits = {maxMs: 5000, maxBytes: 16 * 1024 * 1024};

export function pathOf(url: string | undefined): string {
	if (!url) {
		return '/';
	}

	const query = url.indexOf('?');
	return query === -1 ? url : url.slice(0, query);
}

export function remoteOf(request: IncomingMessage): string {
	const address = request.socket.remoteAddress ?? 'unknown';
	return address.startsWith('::ffff:') ? address.slice(7) : address;
}

/**
 * The headers the webhook route reads, straight from rawHeaders (first occurrence of each):
 * cheaper than `request.headers`, which builds an object of every header on first use.
 */
export function deliveryHeaders(request: IncomingMessage): DeliveryHeaders {
	const found: DeliveryHeaders = {contentLength: '', signature: '', createdAt: '', id: '', userAgent: ''};
	const raw = request.rawHeaders;
	for (let index = 0; index + 1 < raw.length; index += 2) {
		const name = raw[index] ?? '';
		const value = raw[index + 1] ?? '';
		if (name.length === 14 && name.toLowerCase() === 'content-length') {
			found.contentLength ||= value.trim();
		} else if (name.length === 10 && name.toLowerCase() === 'user-agent') {
			found.userAgent ||= value.trim();
		} else if (name.length > 11 && (name.charCodeAt(0) === 120 || name.charCodeAt(0) === 88)) {
			// Starts with x/X: one of the X-Platform-* headers, perhaps.
			const lower = name.toLowerCase();
			if (lower === webhookHeaders.signature) {
				found.signature ||= value.trim();
			} else if (lower === webhookHeaders.createdAt) {
				found.createdAt ||= value.trim();
			} else if (lower === webhookHeaders.id) {
				found.id ||= value.trim();
			}
		}
	}

	return found;
}

// A string body: node:http sends it with the header in one write (a Buffer takes a writev of two).
const successBody = '{"success":true}';
const successHeaders = {'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(successBody))};

/** The 200 `{"success":true}` every verified event gets (prebuilt: it is the hot path). */
export function sendSuccess(response: ServerResponse): void {
	response.writeHead(200, successHeaders);
	response.end(successBody);
}

/**
 * Answers before the body was read (or while it still arrives) and lingers the way nginx does:
 * the rest of the body is read and discarded, for at most `limits.maxMs` after the answer and
 * `limits.maxBytes`, so a client that writes its whole body before reading (Python's http.client,
 * curl) sees the answer and not a broken pipe. Past either bound the connection is dropped; a body
 * that ends in time leaves the connection usable for the next request.
 */
export function answerAndLinger(request: IncomingMessage, response: ServerResponse, status: number, body: unknown, headers: Record<string, string>, limits: LingerLimits): void {
	let discarded = 0;
	let timer: NodeJS.Timeout | undefined;
	const drop = () => {
		request.off('data', onData);
		request.socket.destroy();
	};

	const onData = (chunk: Buffer) => {
		discarded += chunk.length;
		if (discarded > limits.maxBytes) {
			clearTimeout(timer);
			drop();
		}
	};

	request.on('data', onData);
	request.once('end', () => {
		clearTimeout(timer);
	});
	request.resume();
	response.once('finish', () => {
		if (!request.complete) {
			timer = setTimeout(drop, limits.maxMs);
			timer.unref();
		}
	});
	sendJson(response, status, body, headers);
}

/**
 * Reads the raw body under `limit` with plain listeners (no async iterator: leaving one early
 * destroys the socket, and a 413 must still reach the sender). Calls `onBody` with the whole body
 * or `onTooLarge` once the limit is passed (the request is then paused, for the caller to answer).
 */
export function readBody(request: IncomingMessage, limit: number, onBody: (body: Buffer) => void, onTooLarge: () => void): void {
	const read = new BodyRead(request, limit, onBody, onTooLarge);
	request.on('data', read.onData);
	request.on('end', () => {
		read.end();
	});
	request.on('error', () => {
		read.finished = true;
	});
}

/**
 * One body being read. Its listeners are set in the constructor, not declared as named functions:
 * the build keeps function names (esbuild's keepNames), which redefines `name` on every named
 * closure made, a slow change of the function's shape once per delivery.
 */
class BodyRead {
	finished = false;
	readonly onData: (chunk: Buffer) => void;
	private readonly chunks: Buffer[] = [];
	private size = 0;

	constructor(request: IncomingMessage, limit: number, private readonly onBody: (body: Buffer) => void, onTooLarge: () => void) {
		this.onData = chunk => {
			this.size += chunk.length;
			if (this.size > limit) {
				this.finished = true;
				request.off('data', this.onData);
				onTooLarge();
				return;
			}

			this.chunks.push(chunk);
		};
	}

	end(): void {
		if (this.finished) {
			return;
		}

		this.finished = true;
		const {chunks} = this;
		this.onBody(chunks.length === 1 ? chunks[0] ?? Buffer.alloc(0) : Buffer.concat(chunks, this.size));
	}
}

/** The node:http server of the receiver. */
export class HttpListener {
	private server: Server | undefined;
	private address: ListenResult | undefined;

	constructor(private readonly handler: RequestHandler) {}

	get url(): string | undefined {
		return this.address?.url;
	}

	/** Starts listening (port 0 picks a free port). Rejects with the socket error (EADDRINUSE …). */
	async listen(options: ListenOptions = {}): Promise<ListenResult> {
		if (this.server) {
			throw new Error('The receiver is already listening');
		}

		const host = options.host ?? '127.0.0.1';
		const server = createServer({requestTimeout: 30_000, headersTimeout: 15_000, keepAliveTimeout: 5000}, this.handler);
		this.server = server;
		await new Promise<void>((resolve, reject) => {
			const onError = (error: Error) => {
				this.server = undefined;
				reject(error);
			};

			server.once('error', onError);
			server.listen(options.port ?? 8080, host, () => {
				server.off('error', onError);
				resolve();
			});
		});
		const address = server.address() as AddressInfo;
		const shownHost = address.family === 'IPv6' || address.address.includes(':') ? `[${address.address}]` : address.address;
		this.address = {url: `http://${shownHost}:${address.port}`, host: address.address, port: address.port};
		return this.address;
	}

	/** Stops accepting connections and closes idle ones; `finish` ends the rest. */
	beginClose(): {finish(deadline: number): Promise<void>} {
		const {server} = this;
		if (!server) {
			return {finish: async () => Promise.resolve()};
		}

		const closed = new Promise<void>(resolve => {
			server.close(() => {
				resolve();
			});
			server.closeIdleConnections();
		});
		return {
			async finish(deadline) {
				// Requests still being read get until the deadline (at least a moment) to be answered;
				// every answer while closing closes its connection, so this ends as soon as they are done.
				await settlesWithin(closed, Math.max(200, deadline - Date.now()));
				server.closeAllConnections();
				await closed;
			},
		};
	}
}
