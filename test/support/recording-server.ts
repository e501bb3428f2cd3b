import {createServer, type IncomingHttpHeaders, type Server} from 'node:http';
import type {AddressInfo} from 'node:net';

export type RecordedRequest = {
	method: string;
	path: string;
	headers: IncomingHttpHeaders;
	/** The body as text (for JSON calls) — empty for streamed uploads, see `bytes`. */
	body: string;
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

/**
 * A small loopback HTTP server for client tests: it records every request (streaming bodies are
 * counted, not kept) and answers from a queue of scripted responses, else 200 with `{}`.
 */
export async function startRecordingServer(options: {keepBodiesUnder?: number} = {}) {
	const requests: RecordedRequest[] = [];
	const queue: ScriptedResponse[] = [];
	let fallback: (request: RecordedRequest) => ScriptedResponse = () => ({status: 200, body: {}});
	const keepUnder = options.keepBodiesUnder ?? 1024 * 1024;
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
			const recorded: RecordedRequest = {
				method: request.method ?? '',
				path: request.url ?? '',
				headers: request.headers,
				body: bytes <= keepUnder ? Buffer.concat(chunks).toString('utf8') : '',
				bytes,
			};
			requests.push(recorded);
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
