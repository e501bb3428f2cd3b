import {randomBytes} from 'node:crypto';
import {UserError} from '../../errors.js';
import {mask} from '../../format/secret.js';
import {streamUrl} from '../../platform/event-socket.js';
import {SocketListener, type SocketEvent} from '../../receiver/socket/socket-listener.js';
import {socketNotice, socketStatusText} from '../../ui/listen/format.js';
import {noticeFeed} from '../../ui/serve/notices.js';
import {clock} from '../../ui/serve/format.js';
import type {Deps} from '../../cli/deps.js';
import type {Command} from '../../cli/types.js';
import {secretListFlag} from '../../cli/validators.js';
import {assemble, statusOf, type Assembled} from '../serve/receiving.js';
import {ReceivingSession} from '../serve/session.js';
import {listenFlags, parseListen, type ListenOptions} from './flags.js';
import {presentListenJson, presentListenPlain} from './present.js';

export type {ListenOptions} from './flags.js';

/** The sentence a socket that stopped for good ends the run with. */
function stoppedError(event: Extract<SocketEvent, {type: 'socket-stopped'}>, keyMasked: string, url: string): UserError {
	if (event.reason === 'unauthorized') {
		return new UserError('socket-unauthorized', `The platform refused the API key ${keyMasked} on the event socket (HTTP 401), also after the stored key was read again: the key is wrong, expired or revoked; store a working one with \`platform-tui keys set\` (or fix PLATFORM_API_KEY) and start listen again.`);
	}

	return new UserError('socket-not-found', `This platform has no event socket (HTTP 404 from ${url}); use \`platform-tui serve\` behind a public URL instead, or point --socket-url at the socket's address.`);
}

/** Events the store could not take are said (the socket has no replay: such an event is gone). */
function ingestInto(parts: Assembled, origin: string, warn: (message: string) => void): (text: string, frame: number) => void {
	return (text, frame) => {
		void parts.receiver.ingest(text, frame, origin).then(outcome => {
			if (outcome.kind === 'store-failed') {
				warn(`event ${outcome.eventId} could not be stored (${outcome.error}); the platform keeps no copy`);
			} else if (outcome.kind === 'refused') {
				warn(`a frame's event was not taken: ${outcome.reason}`);
			}
		});
	};
}

async function run(options: ListenOptions, deps: Deps): Promise<number> {
	const {context} = deps;
	const settings = deps.settings(['baseUrl', 'apiKey', 'appId', 'userId', 'companyId', ...(options.forwardTo ? ['endpointSecret' as const] : [])], 'listen');
	// The socket's frames carry no signature; a secret is needed only to sign forwards.
	const secrets = options.forwardTo ? secretListFlag(settings.endpointSecret, 'endpointSecret') : [randomBytes(16).toString('hex')];
	const parts = await assemble(options, deps, settings, secrets, 'listen');
	const {receiver, service, keyStatus, model, directory, folderWarnings, events, volatileWarning} = parts;
	await receiver.start();
	const url = streamUrl(settings.baseUrl, options.socketUrl, options.events);
	const session = new ReceivingSession(deps, parts, service.attach(receiver));
	const {now} = session;
	const apiKey = deps.apiKey(settings.apiKey);
	let stopped: Extract<SocketEvent, {type: 'socket-stopped'}> | undefined;
	let tell: (event: SocketEvent) => void = () => undefined;
	const warn = (message: string) => {
		deps.output.print({type: 'warning', at: now(), code: 'socket-event-lost', message}, () => `${clock(now())}  warning: ${message}\n`);
	};

	const socket = new SocketListener({
		url,
		identity: () => ({apiKey: apiKey(), appId: settings.appId, userId: settings.userId, companyId: settings.companyId}),
		onEvent: ingestInto(parts, new URL(url).host, warn),
		onSocketEvent(event) {
			if (event.type === 'socket-stopped') {
				stopped = event;
				session.quit.abort();
			}

			tell(event);
		},
		reconnectEveryMs: options.reconnectEveryMs,
		liveAfterMs: options.overlapMs,
		...(options.socketBackoffMs === undefined ? {} : {backoffBaseMs: options.socketBackoffMs}),
		coverageDirectory: directory,
	});
	const started = {options, socketUrl: url, key: keyStatus(), model, directory, folderWarnings, now};
	if (context.interactive) {
		// The socket's events are rows of the log too (streams dim, gaps in red), as the plain lines say them.
		const notices = noticeFeed();
		tell = event => {
			notices.push(socketNotice(event));
		};

		await session.show({
			source: events,
			notices,
			url: `event socket ${url}`,
			...deps.profile(),
			title: {command: 'platform-tui listen'},
			store: `journal ${directory}`,
			...(folderWarnings.length > 0 ? {warnings: folderWarnings.map(found => found.message)} : {}),
			drainTimeoutMs: options.drainTimeoutMs,
			keyStatus,
			health() {
				const socketState = socketStatusText(socket.status());
				const health = statusOf(service, volatileWarning(), undefined);
				return {...health, text: `${socketState.text} · ${health.text}`, ok: socketState.ok && health.ok};
			},
		});
	} else {
		tell = deps.output.json ? presentListenJson(deps, started, events) : presentListenPlain(deps, started, events);
	}

	session.followStatus();
	socket.start();
	const code = await session.finish(options, 'listen', async () => socket.close());
	if (stopped) {
		throw stoppedError(stopped, mask(apiKey()), url);
	}

	return code;
}

const command: Command<ListenOptions> = {
	usage: 'platform-tui listen [--forward-to URL] [--events NAMES] [--socket-url URL] [--reconnect-every 9m] [--overlap 5s] [--data-dir DIR] [--concurrency 8]',
	description: 'Receive the platform\'s events over its event socket, with no public endpoint: a fresh stream before the platform closes the old one, copies dropped by id, every gap reported. Each event is stored in the journal first, then answered as serve answers it, or POSTed, signed as the platform signs webhooks, to --forward-to.',
	flags: listenFlags,
	examples: [
		'platform-tui listen',
		'platform-tui listen --forward-to http://127.0.0.1:3000/webhook',
		'platform-tui listen --json --events platform.chat.external-module.chosen',
		'PLATFORM_EVENT_SOCKET_URL=https://events.example.com/public/event-socket/events/stream platform-tui listen',
	],
	parse: parseListen,
	run,
};

export default command;
