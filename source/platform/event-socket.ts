/**
 * The platform's event socket on the wire (platform-api.md, "Event socket"): the stream's address
 * (`{origin}/public/event-socket/events/stream?subscriptions=…`, the base address's path
 * replaced), its headers (those of every call), and the server-sent-events frames of its answer.
 * A frame's `data` is decoded at the wire only for what is read (its `id`); the text itself is
 * kept, byte for byte, as the event's body.
 */
import {Agent, request} from 'undici';
import * as z from 'zod';
import {errorMessage} from '../format/value.js';
import {userAgent as defaultUserAgent} from '../version.js';
import {apiVersion} from './types.js';

export const eventSocketPath = '/public/event-socket/events/stream';

/** The stream's address: the base address's origin, the socket path, the subscriptions. */
export function eventSocketUrl(baseUrl: string, events: readonly string[]): string {
	const url = new URL(eventSocketPath, new URL(baseUrl).origin);
	url.search = `subscriptions=${events.map(event => encodeURIComponent(event)).join(',')}`;
	return url.href;
}

/** The address to open: --socket-url (its own subscriptions kept when it names some), else the base address's. */
export function streamUrl(base: string, socketUrl: string | undefined, events: readonly string[]): string {
	if (socketUrl === undefined) {
		return eventSocketUrl(base, events);
	}

	const url = new URL(socketUrl);
	if (!url.searchParams.has('subscriptions')) {
		url.search = `subscriptions=${events.map(event => encodeURIComponent(event)).join(',')}`;
	}

	return url.href;
}

export type SocketIdentity = {apiKey: string; appId: string; userId: string; companyId: string; userAgent?: string};

/** A frame's event as read: its id (the rest stays in the text). */
const frameEvent = z.looseObject({id: z.string().min(1)});

/** A frame's data decoded: the id, or why it was skipped. */
export function readFrame(data: string): {id: string} | {skip: 'not-json' | 'no-id'} {
	let parsed: unknown;
	try {
		parsed = JSON.parse(data) as unknown;
	} catch {
		return {skip: 'not-json'};
	}

	const event = frameEvent.safeParse(parsed);
	return event.success ? {id: event.data.id} : {skip: 'no-id'};
}

/**
 * Server-sent events, incrementally: `push` a chunk of text, get the `data` of each frame it
 * completes (several `data:` lines joined with a newline; comments and other fields skipped).
 */
export class SseParser {
	private buffer = '';
	private data: string[] = [];

	push(chunk: string): string[] {
		this.buffer += chunk;
		const frames: string[] = [];
		let newline = this.buffer.indexOf('\n');
		while (newline !== -1) {
			const line = this.buffer.slice(0, newline).replace(/\r$/, '');
			this.buffer = this.buffer.slice(newline + 1);
			if (line === '') {
				if (this.data.length > 0) {
					frames.push(this.data.join('\n'));
					this.data = [];
				}
			} else if (line.startsWith('data:')) {
				this.data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
			}

			newline = this.buffer.indexOf('\n');
		}

		return frames;
	}
}

/** An open stream: its frames go to `onData` until it ends; `ended` settles with why. */
export type OpenStream = {ended: Promise<{error?: string}>; close(): void};

/** Why a stream was not opened: the status (401, 404, 5xx…) or the connection's error. */
export class StreamRefused extends Error {
	override name = 'StreamRefused';
	constructor(readonly status: number | undefined, message: string, readonly retryAfterMs?: number) {
		super(message);
	}
}

/** Opens one stream; resolves once it is answered 200, rejects with `StreamRefused` otherwise. */
export async function openEventStream(url: string, identity: SocketIdentity, onData: (data: string) => void, dispatcher: Agent, connectTimeoutMs = 10_000): Promise<OpenStream> {
	const abort = new AbortController();
	const timer = setTimeout(() => {
		abort.abort();
	}, connectTimeoutMs);
	let response: Awaited<ReturnType<typeof request>>;
	try {
		response = await request(url, {
			method: 'GET',
			dispatcher,
			signal: abort.signal,
			headers: {
				authorization: `Bearer ${identity.apiKey}`,
				'x-app-id': identity.appId,
				'x-user-id': identity.userId,
				'x-company-id': identity.companyId,
				'x-api-version': apiVersion,
				'user-agent': identity.userAgent ?? defaultUserAgent,
				accept: 'text/event-stream',
			},
		});
	} catch (error) {
		throw new StreamRefused(undefined, abort.signal.aborted ? `no answer within ${connectTimeoutMs} ms` : errorMessage(error));
	} finally {
		clearTimeout(timer);
	}

	if (response.statusCode !== 200) {
		await response.body.dump({limit: 64 * 1024}).catch(() => undefined);
		const retryAfter = Number(response.headers['retry-after']);
		throw new StreamRefused(response.statusCode, `HTTP ${response.statusCode}`, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined);
	}

	const parser = new SseParser();
	const {body} = response;
	body.setEncoding('utf8');
	const ended = new Promise<{error?: string}>(resolve => {
		body.on('data', (chunk: string) => {
			for (const data of parser.push(chunk)) {
				onData(data);
			}
		});
		body.once('end', () => {
			resolve({});
		});
		body.once('error', (error: Error) => {
			resolve(abort.signal.aborted ? {} : {error: errorMessage(error)});
		});
		body.once('close', () => {
			resolve({});
		});
	});
	return {ended, close: () => {
		abort.abort();
		body.destroy();
	}};
}
