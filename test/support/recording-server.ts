import {createServer, type IncomingHttpHeaders, type Server, type ServerResponse} from 'node:http';
import type {AddressInfo} from 'node:net';

export type RecordedRequest = {
	method: string;
	path: string;
	headers: IncomingHttpHeaders;
	/** The body as text (for JSON calls) — empty for streamed uploads, see `bytes`. */
	body: string;
	/** The same body as bytes (empty past `keepBodiesUnder`): what a signature is computed over. */
	raw: Buffer;
	bytes: number;
};

export type ScriptedResponse = {
	status: number;
	body?: unknown;
	headers?: Record<string, string>;
	/** Destroy the socket instead of answering (a connection reset). */
	reset?: boolean;
	/** Never answer. */
	hang?: boolean;
};

/** Answers a recorded request itself (instead of the queue); a throw answers 500. */
export type RecordingHandler = (request: RecordedRequest, response: ServerResponse) => void | Promise<void>;

export type RecordingServerOptions = {
	/** Bodies up to this many bytes are kept (default 1 MiB); larger ones are only counted. */
	keepBodiesUnder?: number;
	handler?: RecordingHandler;
};

/** Writes a JSON answer. */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
	response.writeHead(status, {'content-type': 'application/json'}).end(JSON.stringify(body));
}

export type RecordingServer = Awaited<ReturnType<typeof startRecordingServer>>;

/**
 * A small loopback HTTP server for client and webhook tests: it records every request (streaming
 * bodies are counted, not kept) and answers with the handler when one is given, else from a queue
 * of scripted responses, else 200 with `{}`.
 */
export async function startRecordingServer(options: RecordingServerOptions = {}) {
	const requests: RecordedRequest[] = [];
	const queue: ScriptedResponse[] = [];
	let fallback: (request: RecordedRequest) => ScriptedResponse = () => ({status: 200, body: {}});
	const keepUnder = options.keepBodiesUnder ?? 1024 * 1024;
	const {handler} = options;
	const server: Server = createServer((request, response) => {
		const chunks: Buffer[] = [];
		let bytes = 0;
		request.on('data', (chunk: Buffer) => {
			bytes += chunk.length;
			if (bytes <= keepUnder) {
				chunks.push(chunk);
			}
		});
		request.on('end', () => {
			const raw = bytes <= keepUnder ? Buffer.concat(chunks) : Buffer.alloc(0);
			const recorded: RecordedRequest = {
				method: request.method ?? '',
				path: request.url ?? '',
				headers: request.headers,
				body: raw.toString('utf8'),
				raw,
				bytes,
			};
			requests.push(recorded);
			if (handler) {
				Promise.resolve().then(async () => handler(recorded, response)).catch((error: unknown) => {
					if (!response.headersSent) {
						response.writeHead(500).end(String(error));
					}
				});
				return;
			}

			const scripted = queue.shift() ?? fallback(recorded);
			if (scripted.reset) {
				request.socket.destroy();
				return;
			}

			if (scripted.hang) {
				return;
			}

			response.writeHead(scripted.status, {'content-type': 'application/json', ...scripted.headers});
			response.end(scripted.body === undefined ? '' : JSON.stringify(scripted.body));
		});
	});
	await new Promise<void>(resolve => {
		server.listen(0, '127.0.0.1', resolve);
	});
	const {port} = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		requests,
		/** Answers the next requests with these, in order. */
		enqueue(...responses: ScriptedResponse[]) {
			queue.push(...responses);
		},
		setFallback(responder: (request: RecordedRequest) => ScriptedResponse) {
			fallback = responder;
		},
		async close() {
			server.closeAllConnections();
			await new Promise<void>(resolve => {
				server.close(() => {
					resolve();
				});
			});
		},
	};
}
