/** `listen`'s words: the socket's events as log lines, its status for the status box, and each forward as Stripe shows it. */
import {formatMs} from '../../format/duration.js';
import {plural} from '../../format/text.js';
import type {ReceiverEvent} from '../../receiver/events.js';
import type {SocketEvent, SocketStatus} from '../../receiver/socket/socket-listener.js';
import {clock, plainLine} from '../serve/format.js';
import {noticeLine, type Notice, type NoticeTone} from '../serve/notices.js';

/** `14:00:01 → 14:00:06 (5.0 s)`. */
export function gapSpan(from: string, to: string, ms: number): string {
	return `${clock(from)} → ${clock(to)} (${formatMs(ms)})`;
}

/** A socket event in words, the tone it is shown in, and its label (`GAP` for a gap, else `socket`). */
function socketWords(event: SocketEvent): {text: string; tone: NoticeTone; label?: string} {
	switch (event.type) {
		case 'stream-opened': {
			return {text: `stream ${event.stream} opened (${plural(event.open, 'stream')} open)`, tone: 'quiet'};
		}

		case 'stream-closed': {
			const how = event.reason === 'replaced' ? 'closed: the next one is live' : (event.reason === 'stopped' ? 'closed: listen stops' : `closed by the platform after ${formatMs(event.openMs)}${event.error ? ` (${event.error})` : ''}`);
			return {text: `stream ${event.stream} ${how}`, tone: event.reason === 'closed' ? 'warn' : 'quiet'};
		}

		case 'stream-refused': {
			return {text: `not opened (${event.status === undefined ? event.error : `HTTP ${event.status}`}); next try in ${formatMs(event.retryInMs)}`, tone: 'warn'};
		}

		case 'gap': {
			const why = event.downtime ? 'while listen was not running' : 'no stream was live';
			return {label: 'GAP', text: `${gapSpan(event.from, event.to, event.ms)}: ${why}; events the platform published then are lost (it keeps none)`, tone: 'error'};
		}

		case 'frame-skipped': {
			return {text: `skipped a frame of stream ${event.stream}: ${event.reason === 'not-json' ? 'not JSON' : 'no event id'}: ${JSON.stringify(event.data.slice(0, 80))}`, tone: 'warn'};
		}

		case 'socket-closed': {
			return {text: `closed: ${plural(event.streamsOpened, 'stream')} opened, ${plural(event.events, 'event')} (${plural(event.copiesDropped, 'copy', 'copies')} dropped, ${plural(event.skipped, 'frame')} skipped), ${plural(event.gaps, 'gap')} (${formatMs(event.uncoveredMs)} uncovered)`, tone: 'info'};
		}

		case 'socket-stopped': {
			return {text: `stopped: HTTP ${event.status}`, tone: 'error'};
		}
	}
}

/** A socket event as a row of the live screen's log (the same words as its plain line). */
export function socketNotice(event: SocketEvent): Notice {
	const {text, tone, label = 'socket'} = socketWords(event);
	return {kind: 'notice', time: clock(event.at), label, text, tone};
}

/** One plain log line per socket event. */
export function socketLine(event: SocketEvent): string {
	return noticeLine(socketNotice(event));
}

/** A forward's result as Stripe's CLI shows it: `[200] POST /webhook evt_… 12 ms`; undefined for any other event. */
export function forwardLine(event: ReceiverEvent, forwardTo: string): string | undefined {
	if (event.type !== 'stage' || event.forward === undefined) {
		return undefined;
	}

	const {forward} = event;
	const path = new URL(forwardTo).pathname;
	const answer = forward.status === undefined ? `[ERR] POST ${path} ${event.eventId} ${formatMs(forward.ms)}: ${forward.error ?? 'no answer'}` : `[${forward.status}] POST ${path} ${event.eventId} ${formatMs(forward.ms)}`;
	const retry = forward.retryInMs === undefined ? '' : `; retry in ${formatMs(forward.retryInMs)}`;
	return `${clock(event.at)}  ${answer}${retry}`;
}

/** One plain log line per receiver event of listen: forwards as Stripe shows them, the rest as serve. */
export function listenLine(event: ReceiverEvent, forwardTo: string | undefined): string {
	return (forwardTo === undefined ? undefined : forwardLine(event, forwardTo)) ?? plainLine(event);
}

/** The socket's status in a few words, for the status box and the status line. */
export function socketStatusText(status: SocketStatus): {text: string; ok: boolean} {
	const state = status.state === 'live' ? 'socket live' : (status.state === 'connecting' ? 'socket connecting' : (status.state === 'down' ? `socket DOWN since ${status.gapSince ? clock(status.gapSince) : 'now'}` : 'socket stopped'));
	const gaps = `${plural(status.gaps, 'gap')} (${formatMs(status.uncoveredNowMs)} uncovered)`;
	const last = status.lastGap ? ` · last gap ${gapSpan(new Date(status.lastGap.from).toISOString(), new Date(status.lastGap.to).toISOString(), status.lastGap.to - status.lastGap.from)}` : '';
	const skipped = status.skipped > 0 ? ` · ${plural(status.skipped, 'frame')} skipped` : '';
	return {text: `${state} · ${plural(status.streamsOpened, 'stream')} opened · ${gaps}${last}${skipped}`, ok: status.state === 'live'};
}
