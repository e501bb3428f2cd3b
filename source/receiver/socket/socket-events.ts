/** What the event socket's listener (socket-listener.ts) reports and takes: its typed events, its status and its options. */
import type {SocketIdentity} from '../../platform/event-socket.js';
import type {CoverageTotals} from './coverage.js';

export type SocketEvent =
	| {type: 'stream-opened'; at: string; stream: number; open: number}
	| {type: 'stream-closed'; at: string; stream: number; reason: 'replaced' | 'closed' | 'stopped'; openMs: number; live: boolean; error?: string}
	| {type: 'stream-refused'; at: string; status?: number; error: string; retryInMs: number}
	| {type: 'gap'; at: string; from: string; to: string; ms: number; downtime: boolean}
	| {type: 'frame-skipped'; at: string; stream: number; reason: 'not-json' | 'no-id'; data: string}
	| {type: 'socket-stopped'; at: string; reason: 'unauthorized' | 'not-found'; status: number}
	/** The run's totals, once every stream is closed. */
	| {type: 'socket-closed'; at: string; streamsOpened: number; gaps: number; uncoveredMs: number; events: number; copiesDropped: number; skipped: number};

export type SocketState = 'connecting' | 'live' | 'down' | 'stopped';

export type SocketStatus = CoverageTotals & {
	state: SocketState;
	streamsOpened: number;
	openStreams: number;
	/** Events handed on (first copies). */
	events: number;
	/** Second copies dropped by id. */
	copiesDropped: number;
	/** Frames that were not JSON or had no id. */
	skipped: number;
	/** Uncovered time so far, the gap open now included, ms. */
	uncoveredNowMs: number;
	/** Start of the gap open now (ISO), while one is. */
	gapSince?: string;
};

export type SocketListenerOptions = {
	/** The stream's address, subscriptions included. */
	url: string;
	/** Read at every connect: a key rotated and stored meanwhile is used (a 401 reads it once more). */
	identity: () => SocketIdentity;
	/** Each event's frame text, first copy only, in arrival order. */
	onEvent: (text: string, frame: number) => void;
	onSocketEvent?: (event: SocketEvent) => void;
	/** Default 9 min (under the platform's 10-minute close). */
	reconnectEveryMs?: number;
	/** How long a new stream is open before it counts as live and the old one is closed, ms. Default 5000. */
	liveAfterMs?: number;
	/** Backoff base and cap, ms (the first reconnect after a live stream closed is immediate). Default 500 / 30 000. */
	backoffBaseMs?: number;
	backoffCapMs?: number;
	connectTimeoutMs?: number;
	/** Ids remembered for dropping copies. Default 50 000. */
	recentIds?: number;
	/** Where the last covered moment is kept across runs (the data directory); undefined: nowhere. */
	coverageDirectory?: string;
	random?: () => number;
};
