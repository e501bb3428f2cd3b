/** `listen`'s flags and their parse (the command itself is listen.ts); the flags it shares with serve are serve's. */
import {eventTypes} from '../../platform/types.js';
import type {CommandInput, FlagSpec} from '../../cli/types.js';
import {readFlags} from '../../cli/flag-values.js';
import {UsageError} from '../../cli/validators.js';
import {receiverDefaults} from '../../receiver/receiver-options.js';
import {parseReceiving, receivingFlags, type ReceivingOptions} from '../serve/flags.js';

export type ListenOptions = ReceivingOptions & {
	/** Event names subscribed to. */
	events: string[];
	/** --socket-url, else PLATFORM_EVENT_SOCKET_URL; undefined: from the base address. */
	socketUrl?: string;
	/** A fresh stream this often, ms. */
	reconnectEveryMs: number;
	/** How long a new stream runs beside the old one before the old one is closed, ms. */
	overlapMs: number;
	/** Hidden (tests): the reconnect backoff's base, ms. */
	socketBackoffMs?: number;
};

const minuteMs = 60 * 1000;

export const listenFlags = {
	events: {type: 'string', isMultiple: true, description: 'Event names to subscribe to, comma-separated or repeated (default: platform.chat.user-message.created and platform.chat.external-module.chosen)', placeholder: 'NAMES'},
	socketUrl: {type: 'string', env: 'PLATFORM_EVENT_SOCKET_URL', range: {kind: 'url', protocols: ['http:', 'https:']}, description: 'The event socket\'s address (default: {origin of the base URL}/public/event-socket/events/stream)', placeholder: 'URL'},
	reconnectEvery: {type: 'string', default: '9m', range: {kind: 'duration', min: 100, max: 24 * 60 * minuteMs}, description: 'Open a fresh stream this often, before the platform closes the old one (it does at 10m)', placeholder: 'DURATION'},
	overlap: {type: 'string', default: '5s', range: {kind: 'duration', min: 0, max: 10 * minuteMs}, description: 'How long a new stream runs beside the old one before the old one is closed (its subscription needs a moment to go live)', placeholder: 'DURATION'},
	...receivingFlags,
	// Refused with a sentence (parseListen): the socket is a development tool for one machine.
	redis: {type: 'string'},
	socketBackoff: {type: 'number', range: {kind: 'int', min: 1, max: 60_000, example: 500}},
} satisfies Record<string, FlagSpec>;

export const defaultEvents = [eventTypes.userMessageCreated, eventTypes.externalModuleChosen];

export function parseListen(input: CommandInput): ListenOptions {
	if (input.flags.redis !== undefined) {
		throw new UsageError('flag-invalid', '--redis is not for listen: the event socket is a development tool for one machine, so listen keeps its events in the journal (--data-dir); run serve --redis for replicas that share the work.');
	}

	const flags = readFlags(listenFlags, input);
	// PLATFORM_REDIS_URL is serve's: listen always keeps its events in the journal.
	const receiving = parseReceiving({...input, env: {...input.env, PLATFORM_REDIS_URL: undefined}});
	const events = flags.events.flatMap(value => value.split(',')).map(name => name.trim()).filter(name => name !== '');
	if (flags.overlap >= flags.reconnectEvery) {
		throw new UsageError('flag-invalid', `--overlap must be shorter than --reconnect-every (${String(flags.reconnectEvery / 1000)}s): the old stream is closed only after the new one ran beside it that long; got ${String(input.flags.overlap)}.`);
	}

	return {
		...receiving,
		toleranceSeconds: receiverDefaults.toleranceSeconds,
		events: events.length > 0 ? [...new Set(events)] : [...defaultEvents],
		reconnectEveryMs: flags.reconnectEvery,
		overlapMs: flags.overlap,
		...(flags.socketUrl === undefined ? {} : {socketUrl: flags.socketUrl}),
		...(flags.socketBackoff === undefined ? {} : {socketBackoffMs: flags.socketBackoff}),
	};
}
