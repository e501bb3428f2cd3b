import {defaultModel} from '../config/settings.js';
import {UserError} from '../errors.js';
import {formatCompactDuration} from '../format/duration.js';
import {mask, maskUrl} from '../format/secret.js';
import {plural} from '../format/text.js';
import {errorCode} from '../format/value.js';
import type {EventBackend, StoreDurability} from '../receiver/backend.js';
import {defaultDataDir} from '../receiver/open-backend.js';
import {createReceiver} from '../receiver/server.js';
import {createService} from '../receiver/service.js';
import {Pacer} from '../platform/pacer.js';
import {lineWriter} from '../ui/serve/line-writer.js';
import {clock, plainLine} from '../ui/serve/format.js';
import {replayingSource} from '../ui/serve/source.js';
import type {KeyStatus} from '../ui/serve/ServeScreen.js';
import type {renderApp} from '../ui/render.js';
import {waitForAbort} from '../cli/abort.js';
import {editWhileServing} from './events/edit-replay.js';
import type {Deps} from '../cli/deps.js';
import type {Command} from '../cli/types.js';
import {healthNext, healthRecord, healthText, waitingRecord, waitingText} from '../cli/messages/health.js';
import {durabilityWarning} from '../cli/messages/redis.js';
import {parseServe, serveFlags, type ServeOptions} from './serve-flags.js';
import {openServeStore, receiverOptions} from './serve-start.js';
import {secretListFlag} from '../cli/validators.js';
import {commandInfo} from '../cli/declaration.js';
import declaration from './serve.command.js';

export type {ServeOptions} from './serve-flags.js';

function listenError(error: unknown, options: Pick<ServeOptions, 'port' | 'host'>): Error {
	const code = errorCode(error);
	if (code === 'EADDRINUSE') {
		return new UserError('port-in-use', `Port ${options.port} on ${options.host} is already in use; stop whatever holds it or pass --port with another port (--port 0 picks a free one)`);
	}

	if (code === 'EACCES') {
		return new UserError('port-not-allowed', `Not allowed to listen on ${options.host}:${options.port}; use a port above 1023 (--port 8080)`);
	}

	if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
		return new UserError('host-not-local', `Cannot listen on ${options.host}: the address is not on this machine; pass --host 127.0.0.1 (or 0.0.0.0 for every interface)`);
	}

	return error instanceof Error ? error : new UserError('listen-failed', `Cannot listen on ${options.host}:${options.port}`);
}

/** `on`, `off` or `unknown`: Redis persistence as the listening line and the warning's code name it. */
function persistenceWord(durability: StoreDurability): 'on' | 'off' | 'unknown' {
	return durability.state === 'persistent' ? 'on' : (durability.state === 'volatile' ? 'off' : 'unknown');
}

function keyStatusOf(deps: Deps, apiKey: () => string): () => KeyStatus {
	// PLATFORM_API_KEY is read once at start (as the client does): a rotation stored meanwhile is not used.
	const source = deps.context.env.PLATFORM_API_KEY?.trim() ? 'env' as const : 'stored' as const;
	return () => {
		const rotation = deps.store().rotation();
		return {
			keyMasked: mask(apiKey()),
			source,
			...(rotation.previousKeyMasked ? {previousKeyMasked: rotation.previousKeyMasked} : {}),
			...(rotation.previousKeyExpiresAt ? {previousKeyExpiresAt: rotation.previousKeyExpiresAt} : {}),
		};
	};
}

/** What a started serve tells its presenter: where it listens and with what. */
type Started = {
	options: ServeOptions;
	url: string;
	adminUrl?: string;
	secrets: number;
	key: KeyStatus;
	previousValid: boolean;
	model: string;
	backend: EventBackend;
	directory: string;
	store: string;
	warning?: string;
	now: () => string;
};

type EventLog = ReturnType<typeof replayingSource>;

/** The NDJSON presenter: a `listening` record, a start-up warning, then one record per event. */
function presentJson(deps: Deps, started: Started, events: EventLog, log: ReturnType<typeof lineWriter>): void {
	const {options, url, key, previousValid, model, backend, directory, adminUrl, warning, now} = started;
	const rate = options.platformRate;
	deps.writeJson({
		type: 'listening',
		at: now(),
		url,
		webhookUrl: `${url}/webhook`,
		healthUrl: `${url}/health`,
		secrets: started.secrets,
		key: key.keyMasked,
		keySource: key.source,
		...(previousValid ? {previousKey: key.previousKeyMasked, previousKeyExpiresAt: key.previousKeyExpiresAt} : {}),
		model,
		concurrency: options.concurrency,
		toleranceSeconds: options.toleranceSeconds,
		drainTimeoutMs: options.drainTimeoutMs,
		backend: backend.kind,
		...(options.redisUrl ? {redis: maskUrl(options.redisUrl), ...(backend.durability ? {redisPersistence: persistenceWord(backend.durability), ...(warning ? {redisWarning: warning} : {})} : {})} : {dataDir: directory}),
		...(options.redisWaitReplicas === undefined ? {} : {redisWaitReplicas: options.redisWaitReplicas}),
		retention: formatCompactDuration(options.retentionMs),
		maxEvents: options.maxEvents,
		maxBacklog: options.maxBacklog,
		...(adminUrl ? {adminUrl} : {}),
		...(rate === undefined ? {} : {platformRate: rate}),
		...(options.forwardTo ? {forwardTo: options.forwardTo, forwardRetries: options.forwardRetries} : {}),
		answerDeadline: formatCompactDuration(options.answerDeadlineMs),
		finalMessageDeadline: formatCompactDuration(options.finalMessageDeadlineMs),
	});
	if (warning && backend.durability) {
		deps.writeJson({type: 'warning', at: now(), code: `redis-persistence-${persistenceWord(backend.durability)}`, message: warning});
	}

	events.on('event', event => {
		log.line(JSON.stringify(event));
	});
}

/** The plain presenter: the start-up banner on stderr, then one line per event on stdout. */
function presentPlain(deps: Deps, started: Started, events: EventLog, log: ReturnType<typeof lineWriter>): void {
	const {context} = deps;
	const {options, url, key, previousValid, model, adminUrl, warning, store, now} = started;
	const previous = previousValid ? `; previous key ${key.previousKeyMasked ?? ''} valid until ${key.previousKeyExpiresAt ?? ''}` : '';
	const keyFrom = key.source === 'env' ? ' from PLATFORM_API_KEY (a rotated key is used only after a restart with the new value)' : '';
	const admin = adminUrl ? `; admin ${adminUrl} (/livez, /readyz, /metrics)` : '';
	const handling = options.forwardTo ? `forwarding to ${options.forwardTo}` : `model ${model}`;
	// The start-up banner and a start-up warning are diagnostics (stderr, one write, in order);
	// the event log is serve's output (stdout).
	const warningLine = warning ? `${clock(now())}  warning: ${warning}\n` : '';
	context.stderr.write(`Listening on ${url} (POST ${url}/webhook, GET ${url}/health)${admin}; secrets ${started.secrets} ok; key ${key.keyMasked}${keyFrom}${previous}; ${handling}; concurrency ${options.concurrency}; events in ${store}. Ctrl+C to stop.\n${warningLine}`);
	events.on('event', event => {
		log.line(plainLine(event));
	});
}

const command: Command<ServeOptions> = {
	...commandInfo(declaration),
	usage: 'platform-tui serve [--port 8080] [--host 127.0.0.1] [--concurrency 8] [--data-dir DIR | --redis URL [--allow-volatile-redis] [--redis-wait-replicas N]] [--retention 7d] [--max-events 100000] [--admin-port N] [--exit-on-unready SECONDS] [--max-backlog N] [--platform-rate N] [--forward-to URL]',
	description: 'Run the webhook receiver (POST /webhook, GET /health) with a live event log. Every verified event is stored before its 200: in a journal in the data directory, or in Redis with --redis so several replicas share the work.',
	flags: serveFlags,
	examples: [
		'platform-tui serve',
		'platform-tui serve --port 0 --json',
		'platform-tui serve --data-dir ./events --retention 3d',
		'PLATFORM_REDIS_URL=redis://127.0.0.1:6379 platform-tui serve --port 8081',
		'PLATFORM_ENDPOINT_SECRET="$NEW,$OLD" platform-tui serve --port 8080 --drain-timeout 25',
		'platform-tui serve --admin-port 9090 --exit-on-unready 120 --platform-rate 20',
		'platform-tui serve --forward-to http://127.0.0.1:3000/webhooks/platform',
	],
	parse: parseServe,
	async run(options, deps) {
		const {context} = deps;
		const settings = deps.settings(['baseUrl', 'apiKey', 'appId', 'endpointSecret'], 'serve');
		const secrets = secretListFlag(settings.endpointSecret, 'endpointSecret');
		const directory = options.dataDir ?? defaultDataDir(context.env);
		const rate = options.platformRate;
		const backend = await openServeStore(options, directory);
		// One pacer for every call of this process; a 429 holds every worker (with Redis, every replica).
		const pacer = new Pacer({...(rate === undefined ? {} : {perSecond: rate}), onPause: ms => void backend.throttle?.(ms).catch(() => undefined)});
		const client = deps.client(settings, {pacer, onRequest: entry => {
			service.onRequest(entry);
		}});
		const service = createService({backend, client, maxBacklog: options.maxBacklog, ...(options.probeIntervalMs === undefined ? {} : {probeIntervalMs: options.probeIntervalMs, failingProbeIntervalMs: options.probeIntervalMs})});
		const keyStatus = keyStatusOf(deps, deps.apiKey(settings.apiKey));
		const model = settings.model ?? defaultModel;
		const receiver = createReceiver(receiverOptions(options, {client, secrets, backend, model, service}));
		const store = options.redisUrl ? `redis ${maskUrl(options.redisUrl)}` : `journal ${directory}`;
		// Said at start-up: on the screen's status box, as a log line, as an NDJSON record; a volatile
		// Redis (run with --allow-volatile-redis) is named again on every status line.
		const redisWarning = () => options.redisUrl ? durabilityWarning(backend.durability, maskUrl(options.redisUrl)) : undefined;
		const volatileWarning = () => backend.durability?.state === 'volatile' ? redisWarning() : undefined;
		const warning = redisWarning();
		// Subscribed before listening: what starts with it (events resumed from the journal) is kept
		// for the screen or the log, which attach a moment later.
		const events = {
			...replayingSource(receiver),
			// The screen's e: the editor opens while the receiver goes on answering.
			edit: async (id: string) => editWhileServing(await receiver.event(id), id, backend, async replayed => receiver.replay(replayed), context.env, () => new Date(deps.clock.now())),
		};
		let url: string;
		let adminUrl: string | undefined;
		try {
			({url} = await receiver.listen({port: options.port, host: options.host}));
			if (options.adminPort !== undefined) {
				const admin = {port: options.adminPort, host: options.adminHost};
				adminUrl = (await service.listenAdmin(admin).catch((error: unknown) => {
					throw listenError(error, admin);
				})).url;
			}
		} catch (error) {
			await receiver.close(0).catch(() => undefined);
			await service.stop();
			await client.close();
			throw error instanceof UserError ? error : listenError(error, options);
		}

		const attached = service.attach(receiver);
		const statusText = () => {
			const state = service.health.state();
			const volatile = volatileWarning();
			const waiting = service.waiting();
			const waitingPart = waiting.count > 0 ? ` · ${waitingText(waiting, clock)}` : '';
			const next = healthNext(state);
			return {text: `${healthText(state, clock, false)}${waitingPart}${volatile ? ` · warning: ${volatile}` : ''}${adminUrl ? ` · admin ${adminUrl}` : ''}`, ok: state.status === 'ready' && volatile === undefined, ...(next ? {next} : {})};
		};

		// Stops on Ctrl+C / SIGTERM through the context, or on q from the screen; a second Ctrl+C on the
		// screen (force) cuts the drain short. Either way the one shutdown path below runs.
		const quit = new AbortController();
		const forceQuit = new AbortController();
		const stopped = waitForAbort(context.signal, quit.signal);
		const now = () => new Date(deps.clock.now()).toISOString();
		let exitCode = 0;
		let app: ReturnType<typeof renderApp> | undefined;
		const log = lineWriter(context.stdout);
		const flushIntervalMs = 100;
		const key = keyStatus();
		const previousValid = key.previousKeyExpiresAt !== undefined && Date.parse(key.previousKeyExpiresAt) > deps.clock.now();
		const started: Started = {options, url, secrets: secrets.length, key, previousValid, model, backend, directory, store, now, ...(adminUrl ? {adminUrl} : {}), ...(warning ? {warning} : {})};
		if (context.interactive) {
			// Ink and React load only for the screen; plain and NDJSON runs stay lean.
			const [{ServeScreen}, {renderApp}] = await Promise.all([import('../ui/serve/ServeScreen.js'), import('../ui/render.js')]);
			app = renderApp(context, (
				<ServeScreen
					source={events}
					url={url}
					secretCount={secrets.length}
					store={store}
					{...(warning ? {warnings: [warning]} : {})}
					drainTimeoutMs={options.drainTimeoutMs}
					keyStatus={keyStatus}
					health={statusText}
					flushIntervalMs={flushIntervalMs}
					onQuit={force => {
						if (!force) {
							quit.abort();
							return;
						}

						// A second Ctrl+C: stop waiting for running jobs, as the shell does on a second SIGINT.
						exitCode = 130;
						forceQuit.abort();
						quit.abort();
					}}
				/>
			));
		} else if (context.json) {
			presentJson(deps, started, events, log);
		} else {
			presentPlain(deps, started, events, log);
		}

		const showStatus = (state: ReturnType<typeof service.health.state>) => {
			const volatile = volatileWarning();
			if (context.json) {
				log.line(JSON.stringify({...healthRecord(state), ...(volatile ? {warning: volatile} : {})}));
			} else if (!app) {
				log.line(`${clock(state.since)}  status ${healthText(state, clock)}${volatile ? ` · warning: ${volatile}` : ''}`);
			}
		};

		void attached.then(() => {
			showStatus(service.health.state());
			service.health.on(showStatus);
			service.onWaiting(summary => {
				if (context.json) {
					log.line(JSON.stringify(waitingRecord(summary)));
				} else if (!app) {
					log.line(`${clock(now())}  status ${waitingText(summary, clock)}`);
				}
			});
		});
		const cancelUnready = options.exitOnUnreadyMs === undefined ? () => undefined : service.exitWhenUnready(options.exitOnUnreadyMs / 1000, state => {
			exitCode = 1;
			context.stderr.write(`serve was not ready for ${formatCompactDuration(options.exitOnUnreadyMs ?? 0)} (${state.reasons.join('; ')}); stopping with exit code 1 so a supervisor restarts it.\n`);
			quit.abort();
		});
		try {
			await stopped;
			cancelUnready();
			await Promise.race([receiver.close(forceQuit.signal.aborted ? 0 : options.drainTimeoutMs), waitForAbort(forceQuit.signal)]);
		} finally {
			const left = forceQuit.signal.aborted ? receiver.counters().processing : 0;
			events.dispose();
			log.flush();
			await attached.catch(() => undefined);
			await service.stop();
			await client.close();
			if (app) {
				// Let the last events render before the screen is released.
				await new Promise(resolve => {
					setTimeout(resolve, flushIntervalMs + 20);
				});
				app.unmount();
				await app.waitUntilExit();
			}

			if (forceQuit.signal.aborted) {
				context.stderr.write(`Quit without waiting: ${plural(left, 'job')} left unfinished; ${options.redisUrl ? 'another replica takes them over' : 'the next serve on this data directory resumes them'}.\n`);
			}
		}

		return exitCode;
	},
};

export default command;
