/**
 * The client's HTTP transport on Node's own `http`/`https` modules: keep-alive connection pools,
 * a connect timeout, an abort signal per request, and a request body sent as a string or streamed.
 * Node's built-in HTTP parser costs a few MiB where the `undici` package's WebAssembly parser costs
 * about 50 MiB of resident memory, which a short CLI run pays in full (issue 13: a 1 KiB upload
 * peaked at 110 MiB).
 */
import http, {type IncomingHttpHeaders} from 'node:http';
import {connectTimeoutCode} from './errors.js';

/** Marks an error of a request whose last byte never reached the operating system (see `notSent`). */
export const notSentMark = Symbol('platform request not sent');

/**
 * A streamed body: calls `write` for each chunk and awaits it. A chunk may be reused once its
 * `write` has resolved (the bytes are then with the operating system), so a file is sent through
 * a fixed pair of buffers instead of a fresh buffer per read left for the garbage collector.
 */
export type BodyWriter = (write: (chunk: Uint8Array) => Promise<void>) => Promise<void>;

export type TransportRequest = {
	method: string;
	headers: Record<string, string>;
	/** Text (sent as UTF-8), exact bytes, or a streamed body. */
	body?: string | Uint8Array | BodyWriter | undefined;
	signal: AbortSignal;
};

export type TransportResponse = {
	statusCode: number;
	headers: IncomingHttpHeaders;
	/** The whole body as UTF-8 text. */
	text: string;
};

export type Transport = {
	request(url: URL, init: TransportRequest): Promise<TransportResponse>;
	/** Closes the pooled connections. */
	close(): Promise<void>;
};

export type TransportOptions = {
	/** Time allowed to open a connection, ms. */
	connectTimeoutMs: number;
};

type Route = {agent: http.Agent; request: typeof http.request};

/**
 * How long a pooled connection may stay idle before this side closes it, ms, as Node's own global
 * agent sets it. With it set, the agent also honours the server's `Keep-Alive: timeout=N` hint,
 * closing an idle connection a second before the server does: without it, a connection the server
 * closed at the instant a request went out on it ended that request with ECONNRESET, and a create
 * that may have been processed is not sent again. (It bounds idle pooled sockets only: a request
 * in flight is never cut by it.)
 */
export const idleSocketMs = 5000;

/** The options of both pools (http and https). */
export const poolOptions = {keepAlive: true, timeout: idleSocketMs} as const;

type Agents = {http: Route; https?: Route};

async function routeFor(url: URL, agents: Agents): Promise<Route> {
	if (url.protocol !== 'https:') {
		return agents.http;
	}

	// TLS loads only for an https address, once.
	if (!agents.https) {
		const https = await import('node:https');
		agents.https = {agent: new https.Agent(poolOptions), request: https.request};
	}

	return agents.https;
}

function send(url: URL, init: TransportRequest, agent: http.Agent, options: TransportOptions, request: typeof http.request): Promise<TransportResponse> {
	return new Promise<TransportResponse>((resolve, reject) => {
		const {body, signal} = init;
		const headers = typeof body === 'string' || body instanceof Uint8Array ? {...init.headers, 'content-length': String(Buffer.byteLength(body))} : init.headers;
		const outgoing = request(url, {method: init.method, headers, agent, signal});
		let connectTimer: NodeJS.Timeout | undefined;
		const done = () => {
			clearTimeout(connectTimer);
		};

		// 'finish': the request's last byte is with the operating system. A break before it means
		// the platform never got the request whole, so it cannot have processed it.
		let handedOver = false;
		outgoing.on('finish', () => {
			handedOver = true;
		});
		outgoing.on('error', error => {
			done();
			reject(handedOver ? error : Object.assign(error, {[notSentMark]: true}));
		});
		outgoing.on('socket', socket => {
			if (!socket.connecting) {
				return;
			}

			connectTimer = setTimeout(() => {
				outgoing.destroy(Object.assign(new Error(`no connection to ${url.host} within ${options.connectTimeoutMs} ms`), {code: connectTimeoutCode}));
			}, options.connectTimeoutMs);
			socket.once('connect', done);
		});
		outgoing.on('response', response => {
			done();
			const chunks: Buffer[] = [];
			response.on('data', (chunk: Buffer) => {
				chunks.push(chunk);
			});
			response.on('error', reject);
			response.on('aborted', () => {
				reject(Object.assign(new Error('the connection closed before the answer ended'), {code: 'ECONNRESET'}));
			});
			response.on('end', () => {
				resolve({statusCode: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8')});
			});
		});
		if (body === undefined || typeof body === 'string' || body instanceof Uint8Array) {
			outgoing.end(body);
			return;
		}

		const write = async (chunk: Uint8Array) => new Promise<void>((resolveWrite, rejectWrite) => {
			outgoing.write(chunk, error => {
				if (error) {
					rejectWrite(error);
				} else {
					resolveWrite();
				}
			});
		});
		body(write).then(() => {
			outgoing.end();
		}, (error: unknown) => {
			// The request's own error (a reset, the signal) settles the promise; this ends the request.
			outgoing.destroy(error instanceof Error ? error : new Error(String(error)));
		});
	});
}

export function createTransport(options: TransportOptions): Transport {
	const agents: Agents = {http: {agent: new http.Agent(poolOptions), request: http.request}};
	return {
		async request(url, init) {
			const route = await routeFor(url, agents);
			return send(url, init, route.agent, options, route.request);
		},
		close() {
			agents.http.agent.destroy();
			agents.https?.agent.destroy();
			return Promise.resolve();
		},
	};
}
