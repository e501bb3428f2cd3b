/**
 * The event socket made gap-free while it runs (`listen`): make before break. A fresh stream is
 * opened every `reconnectEveryMs`; the old one is closed only once the new one has been open
 * `liveAfterMs` (time for its subscription to become live; with no stream live, its first event
 * proves it live sooner and ends the gap there); copies that arrive on both are
 * dropped by event id (bounded memory). An unexpected close reconnects at once, then with jittered
 * backoff (a stream that closes before it was live counts as a failure, so a socket that closes
 * at once is never a hot loop). Every span with no live stream is a gap (coverage.ts). Reports
 * everything as typed events; no Ink, no CLI wording.
 */
import {Agent} from 'undici';
import {abortableSleep} from '../../platform/clock.js';
import {openEventStream, readFrame, StreamRefused, type OpenStream} from '../../platform/event-socket.js';
import {Coverage, readCoveredUntil, type Gap} from './coverage.js';
import type {SocketEvent, SocketListenerOptions, SocketState, SocketStatus} from './socket-events.js';
import {RecentIds} from './recent-ids.js';

export type {SocketEvent, SocketListenerOptions, SocketState, SocketStatus} from './socket-events.js';

type Entry = {n: number; stream?: OpenStream; openedAt: number; live: boolean; retiring: boolean; timers: NodeJS.Timeout[]};

const iso = (ms: number) => new Date(ms).toISOString();

export class SocketListener {
	private readonly options: Required<Omit<SocketListenerOptions, 'onSocketEvent' | 'coverageDirectory'>> & Pick<SocketListenerOptions, 'onSocketEvent' | 'coverageDirectory'>;
	private readonly streams = new Map<number, Entry>();
	private readonly recent: RecentIds;
	private readonly coverage: Coverage;
	private readonly stop = new AbortController();
	private readonly agent = new Agent({bodyTimeout: 0, connections: 8});
	private readonly counts = {streamsOpened: 0, events: 0, copiesDropped: 0, skipped: 0};
	private readonly startedAt = Date.now();
	private connecting = false;
	private failures = 0;
	private everLive = false;
	private unauthorized = 0;
	private stopped = false;
	private closing: Promise<void> | undefined;
	private tick: NodeJS.Timeout | undefined;
	private streamCount = 0;
	private frameCount = 0;

	constructor(options: SocketListenerOptions) {
		this.options = {reconnectEveryMs: 9 * 60 * 1000, liveAfterMs: 5000, backoffBaseMs: 500, backoffCapMs: 30_000, connectTimeoutMs: 10_000, recentIds: 50_000, random: Math.random, ...options};
		this.recent = new RecentIds(this.options.recentIds);
		const previous = options.coverageDirectory === undefined ? undefined : readCoveredUntil(options.coverageDirectory);
		this.coverage = new Coverage(options.coverageDirectory, previous);
	}

	/** Opens the first stream; keeps one live until `close`. */
	start(): void {
		this.tick = setInterval(() => {
			if (this.liveCount() > 0) {
				this.coverage.covered(Date.now());
			}
		}, 1000);
		this.tick.unref();
		void this.connect(0);
	}

	status(): SocketStatus {
		const now = Date.now();
		const live = this.liveCount() > 0;
		const state: SocketState = this.stopped ? 'stopped' : (live ? 'live' : (this.everLive ? 'down' : 'connecting'));
		const since = this.coverage.openGap;
		return {...this.coverage.state, ...this.counts, state, openStreams: this.streams.size, uncoveredNowMs: this.coverage.uncoveredMs(now), ...(since === undefined ? {} : {gapSince: iso(since)})};
	}

	/** Closes every stream (the last covered moment kept for the next start). */
	async close(): Promise<void> {
		this.closing ??= this.shutdown();
		return this.closing;
	}

	private async shutdown(): Promise<void> {
		this.stopped = true;
		this.stop.abort();
		clearInterval(this.tick);
		if (this.liveCount() > 0) {
			this.coverage.covered(Date.now(), true);
		}

		const ending = [...this.streams.values()].map(async entry => {
			this.retire(entry);
			await entry.stream?.ended;
		});
		await Promise.all(ending);
		await this.agent.close();
		const status = this.status();
		this.emit({type: 'socket-closed', at: iso(Date.now()), streamsOpened: status.streamsOpened, gaps: status.gaps, uncoveredMs: status.uncoveredNowMs, events: status.events, copiesDropped: status.copiesDropped, skipped: status.skipped});
	}

	private emit(event: SocketEvent): void {
		try {
			this.options.onSocketEvent?.(event);
		} catch {
			// A failing view must not stop the socket.
		}
	}

	private liveCount(): number {
		let count = 0;
		for (const entry of this.streams.values()) {
			count += entry.live ? 1 : 0;
		}

		return count;
	}

	/** The wait before the next connect after a failure: none for the first, then doubling with jitter. */
	private backoff(retryAfterMs?: number): number {
		this.failures++;
		if (this.failures === 1) {
			return retryAfterMs ?? 0;
		}

		const {backoffBaseMs, backoffCapMs, random} = this.options;
		const wait = Math.min(backoffCapMs, backoffBaseMs * (2 ** (this.failures - 2)));
		return Math.max(retryAfterMs ?? 0, Math.round((wait / 2) + (random() * wait / 2)));
	}

	/** Opens a stream after `delayMs`, retrying refusals with backoff; one connect at a time. */
	private async connect(delayMs: number): Promise<void> {
		if (this.connecting || this.stopped) {
			return;
		}

		this.connecting = true;
		try {
			let wait: number | undefined = delayMs;
			while (wait !== undefined) {
				await abortableSleep(wait, this.stop.signal).catch(() => undefined);
				// Stopped meanwhile (close() sets it while this waits).
				wait = this.stop.signal.aborted ? undefined : await this.attempt();
			}
		} finally {
			this.connecting = false;
		}
	}

	/** One connect: undefined when done (opened, or stopped for good), else the wait before the next. */
	private async attempt(): Promise<number | undefined> {
		const n = ++this.streamCount;
		try {
			const stream = await openEventStream(this.options.url, this.options.identity(), data => {
				this.onData(n, data);
			}, this.agent, this.options.connectTimeoutMs);
			this.opened(n, stream);
			return undefined;
		} catch (error) {
			if (!(error instanceof StreamRefused)) {
				return this.refused(undefined, String(error));
			}

			if (error.status === 401 && this.unauthorized++ === 0) {
				// A rotation may have stored a new key: it is read once more, at once.
				return 0;
			}

			if (error.status === 401 || error.status === 404) {
				this.stopForGood(error.status === 401 ? 'unauthorized' : 'not-found', error.status);
				return undefined;
			}

			return this.refused(error.status, error.message, error.retryAfterMs);
		}
	}

	private refused(status: number | undefined, message: string, retryAfterMs?: number): number {
		if (this.liveCount() === 0) {
			// Nothing live: a gap from the last covered moment (from the start, when nothing was yet).
			this.coverage.uncovered(this.everLive ? Date.now() : this.startedAt);
		}

		const retryInMs = this.backoff(retryAfterMs);
		this.emit({type: 'stream-refused', at: iso(Date.now()), ...(status === undefined ? {} : {status}), error: message, retryInMs});
		return retryInMs;
	}

	private stopForGood(reason: 'unauthorized' | 'not-found', status: number): void {
		this.emit({type: 'socket-stopped', at: iso(Date.now()), reason, status});
		void this.close();
	}

	private opened(n: number, stream: OpenStream): void {
		const now = Date.now();
		const entry: Entry = {n, stream, openedAt: now, live: false, retiring: false, timers: []};
		if (this.stopped) {
			stream.close();
			return;
		}

		this.streams.set(n, entry);
		this.counts.streamsOpened++;
		this.emit({type: 'stream-opened', at: iso(now), stream: n, open: this.streams.size});
		entry.timers.push(setTimeout(() => {
			this.wentLive(entry);
		}, this.options.liveAfterMs), setTimeout(() => void this.connect(0), this.options.reconnectEveryMs));
		void stream.ended.then(result => {
			this.ended(entry, result.error);
		});
	}

	private wentLive(entry: Entry): void {
		if (!this.streams.has(entry.n) || entry.live) {
			return;
		}

		const now = Date.now();
		entry.live = true;
		this.everLive = true;
		this.failures = 0;
		this.unauthorized = 0;
		const gap = this.coverage.live(now);
		if (gap) {
			this.emitGap(gap, now);
		}

		// Make before break: every older stream goes now that this one is live.
		for (const other of this.streams.values()) {
			if (other.n < entry.n) {
				this.retire(other);
			}
		}
	}

	private emitGap(gap: Gap, now: number): void {
		const downtime = gap.from < this.startedAt;
		this.emit({type: 'gap', at: iso(now), from: iso(gap.from), to: iso(gap.to), ms: gap.to - gap.from, downtime});
	}

	private retire(entry: Entry): void {
		entry.retiring = true;
		for (const timer of entry.timers) {
			clearTimeout(timer);
		}

		entry.stream?.close();
	}

	private ended(entry: Entry, error: string | undefined): void {
		if (!this.streams.delete(entry.n)) {
			return;
		}

		for (const timer of entry.timers) {
			clearTimeout(timer);
		}

		const now = Date.now();
		const reason = this.stopped ? 'stopped' : (entry.retiring ? 'replaced' : 'closed');
		this.emit({type: 'stream-closed', at: iso(now), stream: entry.n, reason, openMs: now - entry.openedAt, live: entry.live, ...(error === undefined ? {} : {error})});
		if (reason !== 'closed') {
			return;
		}

		if (entry.live && this.liveCount() === 0) {
			// It was live until now: the gap starts here.
			this.coverage.covered(now, true);
			this.coverage.uncovered(now);
		}

		if (!entry.live) {
			// Closed before it was live (a socket that closes at once, or a replacement that failed):
			// another one after a backoff, unless one is being opened already.
			if (!this.connecting) {
				void this.connect(this.backoff());
			}
		} else if (this.streams.size === 0) {
			// A live stream closed and none is on its way: at once.
			void this.connect(0);
		}
	}

	private onData(stream: number, data: string): void {
		const frame = readFrame(data);
		if ('skip' in frame) {
			this.counts.skipped++;
			this.emit({type: 'frame-skipped', at: iso(Date.now()), stream, reason: frame.skip, data: data.slice(0, 200)});
			return;
		}

		const entry = this.streams.get(stream);
		if (entry !== undefined && !entry.live && this.liveCount() === 0) {
			// An event on a stream not yet counted live, with none live: its subscription is live,
			// so the gap open ends now rather than once `liveAfterMs` has passed. (Beside a live
			// stream the old one is still closed only after `liveAfterMs`: what it has in flight
			// arrives first.)
			this.wentLive(entry);
		}

		if (this.recent.seen(frame.id)) {
			this.counts.copiesDropped++;
			return;
		}

		this.counts.events++;
		this.options.onEvent(data, ++this.frameCount);
	}
}
