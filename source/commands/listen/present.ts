/** How a listen without its screen tells what it does: NDJSON records, or plain lines. */
import {formatCompactDuration} from '../../format/duration.js';
import type {SocketEvent} from '../../receiver/socket/socket-listener.js';
import {clock} from '../../ui/serve/format.js';
import {listenLine, socketLine} from '../../ui/listen/format.js';
import type {KeyStatus} from '../../ui/serve/ServeScreen.js';
import type {Deps} from '../../cli/deps.js';
import type {EventLog} from '../serve/present.js';
import type {StartWarning} from '../serve/start.js';
import type {ListenOptions} from './flags.js';

/** What a started listen tells its presenter. */
export type ListenStarted = {
	options: ListenOptions;
	/** The stream's address. */
	socketUrl: string;
	key: KeyStatus;
	model: string;
	directory: string;
	folderWarnings: StartWarning[];
	now: () => string;
};

/** The socket's events as NDJSON records (their own `type`s, json-records.ts). */
export function socketRecord(event: SocketEvent): Record<string, unknown> & {type: SocketEvent['type']} {
	return {...event};
}

/** The NDJSON presenter: a `socket-listening` record, the warnings, then one record per event and socket event. */
export function presentListenJson(deps: Deps, started: ListenStarted, events: EventLog): (event: SocketEvent) => void {
	const {options, key, now} = started;
	deps.output.print({
		type: 'socket-listening',
		at: now(),
		socketUrl: started.socketUrl,
		events: options.events,
		key: key.keyMasked,
		keySource: key.source,
		dataDir: started.directory,
		retention: formatCompactDuration(options.retentionMs),
		maxEvents: options.maxEvents,
		concurrency: options.concurrency,
		reconnectEvery: formatCompactDuration(options.reconnectEveryMs),
		overlap: formatCompactDuration(options.overlapMs),
		...(options.forwardTo ? {forwardTo: options.forwardTo, forwardRetries: options.forwardRetries} : {model: started.model}),
		answerDeadline: formatCompactDuration(options.answerDeadlineMs),
		finalMessageDeadline: formatCompactDuration(options.finalMessageDeadlineMs),
	});
	for (const {code, message} of started.folderWarnings) {
		deps.output.print({type: 'warning', at: now(), code, message});
	}

	events.on('event', event => {
		deps.output.print(event);
	});
	return event => {
		deps.output.print(socketRecord(event));
	};
}

/** The plain presenter: the banner on stderr, then one line per event and socket event on stdout. */
export function presentListenPlain(deps: Deps, started: ListenStarted, events: EventLog): (event: SocketEvent) => void {
	const {options, key, now} = started;
	const keyFrom = key.source === 'env' ? ' from PLATFORM_API_KEY' : '';
	const handling = options.forwardTo ? `forwarding to ${options.forwardTo}` : `answering chosen-module events with model ${started.model}`;
	const warnings = started.folderWarnings.map(found => `${clock(now())}  warning: ${found.message}\n`).join('');
	const {profile} = deps.profile();
	deps.context.stderr.write(`Listening on the event socket ${started.socketUrl}${profile === undefined ? '' : ` with profile ${profile}`} (${options.events.join(', ')}); key ${key.keyMasked}${keyFrom}; ${handling}; a fresh stream every ${formatCompactDuration(options.reconnectEveryMs)}; events in journal ${started.directory}. Ctrl+C to stop.\n${warnings}`);
	events.on('event', event => {
		deps.output.print(event, () => `${listenLine(event, options.forwardTo)}\n`);
	});
	return event => {
		deps.output.print(socketRecord(event), () => `${socketLine(event)}\n`);
	};
}
