/**
 * The event socket (platform-api.md, "Event socket"): server-sent events over an authenticated GET
 * of `/public/event-socket/events/stream?subscriptions=…`. Each stream is answered 200
 * `text/event-stream`; its subscription becomes live `goLiveMs` after it opened (events published
 * before that are not sent to it); every stream is closed without warning `maxAgeMs` after it
 * opened; there is no replay. Every open, live, subscribed stream gets each published event as
 * one `data: <event JSON>` frame, so two overlapping streams both get it.
 */
import type {ServerResponse} from 'node:http';
import type {WebhookEvent} from '../../platform/types.js';
import {badRequest} from '../http/http.js';

export {eventSocketPath} from '../../platform/event-socket.js';

export type EventSocketOptions = {
	/** Streams are closed this long after they opened, without warning; default 10 min. */
	maxAgeMs: number;
	/** A new stream's subscription is live this long after it opened; default 300 ms. */
	goLiveMs: number;
};

export const defaultEventSocket: EventSocketOptions = {maxAgeMs: 10 * 60 * 1000, goLiveMs: 300};

type Stream = {
	response: ServerResponse;
	subscriptions: ReadonlySet<string>;
	live: boolean;
	timers: NodeJS.Timeout[];
};

/** The open streams, and the publishing of events to them. */
export class EventSocketHub {
	/** Streams opened since the start (the 200s). */
	opened = 0;
	/** Frames written to streams. */
	sent = 0;
	private readonly streams = new Set<Stream>();
	private refusedUntil = 0;

	constructor(private readonly options: EventSocketOptions) {}

	/** Streams open now (live or not). */
	get open(): number {
		return this.streams.size;
	}

	/** Whether an open, live stream subscribes to `event`. */
	subscribed(event: string): boolean {
		for (const stream of this.streams) {
			if (stream.live && stream.subscriptions.has(event)) {
				return true;
			}
		}

		return false;
	}

	/** Whether new streams are refused now (`refuseFor`). */
	get refusing(): boolean {
		return Date.now() < this.refusedUntil;
	}

	/** Closes every stream and refuses new ones (503) for `ms`: an outage of the socket. */
	refuseFor(ms: number): void {
		this.refusedUntil = Date.now() + ms;
		this.dropAll();
	}

	/** Closes every open stream without warning. */
	dropAll(): void {
		for (const stream of [...this.streams]) {
			this.end(stream);
		}
	}

	/** Answers one stream request (already authenticated); `drop`: closed as soon as it is answered. */
	accept(query: URLSearchParams, response: ServerResponse, drop = false): void {
		const names = (query.get('subscriptions') ?? '').split(',').map(name => name.trim()).filter(name => name !== '');
		if (names.length === 0) {
			throw badRequest('The "subscriptions" query parameter is required: a comma-separated list of event names');
		}

		response.writeHead(200, {'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive'});
		// A comment line: the headers and a first byte go out now, as a proxy in front of the platform would.
		response.write(': connected\n\n');
		this.opened++;
		const stream: Stream = {response, subscriptions: new Set(names), live: false, timers: []};
		if (drop) {
			response.end();
			return;
		}

		this.streams.add(stream);
		const goLive = setTimeout(() => {
			stream.live = true;
		}, this.options.goLiveMs);
		const maxAge = setTimeout(() => {
			this.end(stream);
		}, this.options.maxAgeMs);
		stream.timers.push(goLive, maxAge);
		response.once('close', () => {
			this.forget(stream);
		});
	}

	/** Sends `event` to every live stream subscribed to its name; no replay for streams opened later. */
	publish(event: WebhookEvent<unknown>): number {
		let frame: string | undefined;
		let reached = 0;
		for (const stream of this.streams) {
			if (!stream.live || !stream.subscriptions.has(event.event)) {
				continue;
			}

			frame ??= `data: ${JSON.stringify(event)}\n\n`;
			stream.response.write(frame);
			reached++;
		}

		this.sent += reached;
		return reached;
	}

	close(): void {
		this.dropAll();
	}

	private end(stream: Stream): void {
		this.forget(stream);
		// Without warning: the stream just ends (what was written before still goes out).
		stream.response.end();
	}

	private forget(stream: Stream): void {
		for (const timer of stream.timers) {
			clearTimeout(timer);
		}

		this.streams.delete(stream);
	}
}
