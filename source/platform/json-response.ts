import type {ServerResponse} from 'node:http';

/** Answers with a JSON body and its Content-Length; used by both servers (receiver, local platform). */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
	const text = JSON.stringify(body);
	response.writeHead(status, {
		...headers,
		'content-type': 'application/json; charset=utf-8',
		'content-length': String(Buffer.byteLength(text)),
	});
	response.end(text);
}
