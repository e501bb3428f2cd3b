import {defaultModel} from '../../config/settings.js';
import {activeProfileName} from '../../config/active-profile.js';
import {defaultProfile} from '../../config/profiles.js';
import {keyStatus as storedKeyStatus} from '../../keys/status.js';
import {UserError} from '../../errors.js';
import {formatCompactDuration} from '../../format/duration.js';
import {mask, maskUrl} from '../../format/secret.js';
import {plural} from '../../format/text.js';
import {errorCode} from '../../format/value.js';
import {defaultDataDir} from '../../receiver/store/open-backend.js';
import {createReceiver, type WebhookReceiver} from '../../receiver/server.js';
import {createService, type Service} from '../../receiver/service.js';
import {Pacer} from '../../platform/pacer.js';
import type {PlatformClient} from '../../platform/client.js';
import {clock, plainLine} from '../../ui/serve/format.js';
import {replayingSource} from '../../ui/serve/source.js';
import type {KeyStatus, ServeScreenProps} from '../../ui/serve/ServeScreen.js';
import type {renderApp} from '../../ui/render.js';
import {waitForAbort} from '../../cli/abort.js';
import {editWhileServing} from '../events/edit-replay.js';
import type {Deps} from '../../cli/deps.js';
import type {Command} from '../../cli/types.js';
import {healthNext, healthRecord, healthText, waitingRecord, waitingText} from '../../cli/messages/health.js';
import {durabilityWarning} from '../../cli/messages/redis.js';
import {parseServe, serveFlags, type ServeOptions} from './flags.js';
import {checkFolders, openServeStore, receiverOptions} from './start.js';
import {presentJson, presentPlain, type Started} from './present.js';
import {secretListFlag} from '../../cli/validators.js';
import {loadScreen} from '../../ui/react-build.js';

export type {ServeOptions} from './flags.js';

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

function keyStatusOf(deps: Deps, apiKey: () => string): () => KeyStatus {
	// PLATFORM_API_KEY is read once at start (as the client does): a rotation stored meanwhile is not used.
	const source = deps.context.env.PLATFORM_API_KEY?.trim() ? 'env' as const : 'stored' as const;
	return () => {
		const keyMasked = mask(apiKey());
		const {previousKey, envHoldsPreviousKey, storedKeyMasked} = storedKeyStatus({env: deps.context.env, store: deps.store(), now: () => new Date(deps.clock.now())});
		const expiry = previousKey ? {previousKeyExpiresAt: previousKey.expiresAt} : {};
		// Serve runs on the key a rotation replaced (PLATFORM_API_KEY): its expiry and the stored key
		// to restart with. Otherwise a previous key is shown only when it is not the key in use.
		if (envHoldsPreviousKey && storedKeyMasked) {
			return {keyMasked, source, previousKeyMasked: keyMasked, storedKeyMasked, ...expiry};
		}

		return previousKey?.masked && previousKey.masked !== keyMasked ? {keyMasked, source, previousKeyMasked: previousKey.masked, ...expiry} : {keyMasked, source};
	};
}

/** Serve's parts, wired: the store, the platform client with its pacer, the service, the receiver and its event source. */
async function assemble(options: ServeOptions, deps: Deps) {
	const {context} = deps;
	const settings = deps.settings(['baseUrl', 'apiKey', 'appId', 'endpointSecret'], 'serve');
	const secrets = secretListFlag(settings.endpointSecret, 'endpointSecret');
	const directory = options.dataDir ?? defaultDataDir(context.env);
	const rate = options.platformRate;
	// Checked before the journal opens: another user's folder, or one others can write, is refused.
	const folderWarnings = checkFolders(options, directory, context.env);
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
		edit: async (id: string, stored?: (copyId: string) => void) => editWhileServing(await receiver.event(id), id, backend, async copy => {
			stored?.(copy);
			return receiver.replay(copy);
		}, context.env, () => new Date(deps.clock.now())),
	};
	return {secrets, directory, backend, client, service, keyStatus, model, receiver, store, volatileWarning, warning, folderWarnings, events};
}

/** Listens for webhooks (and the admin endpoints when asked); on failure, closes what was opened. */
async function listenAll(parts: {receiver: WebhookReceiver; service: Service; client: PlatformClient}, options: ServeOptions): Promise<{url: string; adminUrl?: string}> {
	const {receiver, service, client} = parts;
	try {
		const {url} = await receiver.listen({port: options.port, host: options.host});
		if (options.adminPort === undefined) {
			return {url};
		}

		const admin = {port: options.adminPort, host: options.adminHost};
		const {url: adminUrl} = await service.listenAdmin(admin).catch((error: unknown) => {
			throw listenError(error, admin);
		});
		return {url, adminUrl};
	} catch (error) {
		await receiver.close(0).catch(() => undefined);
		await service.stop();
		await client.close();
		throw error instanceof UserError ? error : listenError(error, options);
	}
}

/** The screen's status line: health, waiting events, a volatile Redis, the admin address. */
function statusOf(service: Service, volatile: string | undefined, adminUrl: string | undefined): {text: string; ok: boolean; next?: string} {
	const state = service.health.state();
	const waiting = service.waiting();
	const waitingPart = waiting.count > 0 ? ` · ${waitingText(waiting, clock)}` : '';
	const next = healthNext(state);
	return {text: `${healthText(state, clock, false)}${waitingPart}${volatile ? ` · warning: ${volatile}` : ''}${adminUrl ? ` · admin ${adminUrl}` : ''}`, ok: state.status === 'ready' && volatile === undefined, ...(next ? {next} : {})};
}

/** The live screen; Ink and React load only for it, so plain and NDJSON runs stay lean. */
async function renderScreen(context: Deps['context'], props: Omit<ServeScreenProps, 'onQuit'>, onQuit: (force: boolean) => void): Promise<ReturnType<typeof renderApp>> {
	const [{ServeScreen}, {renderComponent}] = await loadScreen(async () => import('../../ui/serve/ServeScreen.js'));
	return renderComponent(context, ServeScreen, {...props, onQuit});
}

/** Lets the screen's last events render, then releases the terminal. */
async function releaseScreen(app: ReturnType<typeof renderApp> | undefined, flushIntervalMs: number): Promise<void> {
	if (!app) {
		return;
	}

	await new Promise(resolve => {
		setTimeout(resolve, flushIntervalMs + 20);
	});
	app.unmount();
	await app.waitUntilExit();
}

/** Without the screen: the health and the waiting events as status lines (NDJSON records with --json). */
function followStatus(deps: Deps, service: Service, volatileWarning: () => string | undefined, now: () => string): void {
	const showStatus = (state: ReturnType<typeof service.health.state>) => {
		const volatile = volatileWarning();
		deps.output.print({...healthRecord(state), ...(volatile ? {warning: volatile} : {})}, () => `${clock(state.since)}  status ${healthText(state, clock)}${volatile ? ` · warning: ${volatile}` : ''}\n`);
	};

	showStatus(service.health.state());
	service.health.on(showStatus);
	service.onWaiting(summary => {
		deps.output.print(waitingRecord(summary), () => `${clock(now())}  status ${waitingText(summary, clock)}\n`);
	});
}

const command: Command<ServeOptions> = {
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
		const parts = await assemble(options, deps);
		const {secrets, directory, backend, client, service, keyStatus, model, receiver, store, volatileWarning, warning, folderWarnings, events} = parts;
		const {url, adminUrl} = await listenAll({receiver, service, client}, options);

		const attached = service.attach(receiver);

		// Stops on Ctrl+C / SIGTERM through the context, or on q from the screen; a second Ctrl+C on the
		// screen (force) cuts the drain short. Either way the one shutdown path below runs.
		const quit = new AbortController();
		const forceQuit = new AbortController();
		const stopped = waitForAbort(context.signal, quit.signal);
		const now = () => new Date(deps.clock.now()).toISOString();
		let exitCode = 0;
		let app: ReturnType<typeof renderApp> | undefined;
		// Under load one write carries many lines instead of a system call per event.
		const written = deps.output.coalesce(10);
		const flushIntervalMs = 100;
		const key = keyStatus();
		const previousValid = key.previousKeyExpiresAt !== undefined && Date.parse(key.previousKeyExpiresAt) > deps.clock.now();
		const profileName = activeProfileName(context);
		const profile = profileName === defaultProfile ? {} : {profile: profileName};
		const started: Started = {options, url, ...profile, secrets: secrets.length, key, previousValid, model, backend, directory, store, now, folderWarnings, ...(adminUrl ? {adminUrl} : {}), ...(warning ? {warning} : {})};
		const warnings = [...(warning ? [warning] : []), ...folderWarnings.map(found => found.message)];
		if (context.interactive) {
			app = await renderScreen(context, {
				source: events,
				url,
				...profile,
				secretCount: secrets.length,
				store,
				...(warnings.length > 0 ? {warnings} : {}),
				drainTimeoutMs: options.drainTimeoutMs,
				keyStatus,
				health: () => statusOf(service, volatileWarning(), adminUrl),
				flushIntervalMs,
			}, force => {
				if (!force) {
					quit.abort();
					return;
				}

				// A second Ctrl+C: stop waiting for running jobs, as the shell does on a second SIGINT.
				exitCode = 130;
				forceQuit.abort();
				quit.abort();
			});
		} else {
			// Without the screen: the start as a record or a banner, then each event and each change of the status as a line or a record.
			(deps.output.json ? presentJson : presentPlain)(deps, started);
			events.on('event', event => {
				deps.output.print(event, () => `${plainLine(event)}\n`);
			});
			void attached.then(() => {
				followStatus(deps, service, volatileWarning, now);
			});
		}

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
			written();
			await attached.catch(() => undefined);
			await service.stop();
			await client.close();
			await releaseScreen(app, flushIntervalMs);
			if (forceQuit.signal.aborted) {
				context.stderr.write(`Quit without waiting: ${plural(left, 'job')} left unfinished; ${options.redisUrl ? 'another replica takes them over' : 'the next serve on this data directory resumes them'}.\n`);
			}
		}

		return exitCode;
	},
};

export default command;
