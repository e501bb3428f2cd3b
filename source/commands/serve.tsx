import {defaultModel} from '../config/settings.js';
import {UserError} from '../errors.js';
import {formatCompactDuration} from '../format/duration.js';
import {mask, maskUrl} from '../format/secret.js';
import {plural} from '../format/text.js';
import {errorCode} from '../format/value.js';
import type {EventBackend} from '../receiver/backend.js';
import {defaultDataDir, openBackend} from '../receiver/open-backend.js';
import {createReceiver} from '../receiver/server.js';
import {lineWriter} from '../ui/serve/line-writer.js';
import {plainLine} from '../ui/serve/format.js';
import {replayingSource} from '../ui/serve/source.js';
import type {KeyStatus} from '../ui/serve/ServeScreen.js';
import type {renderApp} from '../ui/render.js';
import {waitForAbort} from './abort.js';
import type {Deps} from './deps.js';
import type {Command} from './types.js';
import {parseStore, storeFlags} from './events/store-flags.js';
import {durationFlag, intFlag, portFlag, secondsFlag, secretListFlag, stringFlag} from './validators.js';

export type ServeOptions = {
	port: number;
	host: string;
	concurrency: number;
	toleranceSeconds: number;
	drainTimeoutMs: number;
	/** --data-dir, else PLATFORM_TUI_DATA_DIR; undefined: the app's data folder (resolved at run time). */
	dataDir?: string;
	retentionMs: number;
	maxEvents: number;
	redisUrl?: string;
};

const dayMs = 24 * 60 * 60 * 1000;

function listenError(error: unknown, options: ServeOptions): Error {
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
	return () => {
		const rotation = deps.store().rotation();
		return {
			keyMasked: mask(apiKey()),
			...(rotation.previousKeyMasked ? {previousKeyMasked: rotation.previousKeyMasked} : {}),
			...(rotation.previousKeyExpiresAt ? {previousKeyExpiresAt: rotation.previousKeyExpiresAt} : {}),
		};
	};
}

const command: Command<ServeOptions> = {
	name: ['serve'],
	summary: 'Run the webhook receiver with a live event log',
	usage: 'platform-tui serve [--port 8080] [--host 127.0.0.1] [--concurrency 8] [--data-dir DIR | --redis URL] [--retention 7d] [--max-events 100000]',
	description: 'Run the webhook receiver (POST /webhook, GET /health) with a live event log. Every verified event is stored before its 200: in a journal in the data directory, or in Redis with --redis so several replicas share the work.',
	flags: {
		port: {type: 'number', default: 8080, description: 'Port to listen on; 0 picks a free one', placeholder: 'N'},
		host: {type: 'string', default: '127.0.0.1', description: 'Address to listen on (0.0.0.0 for every interface)', placeholder: 'HOST'},
		concurrency: {type: 'number', default: 8, description: 'Chosen-module events answered at once', placeholder: 'N'},
		tolerance: {type: 'number', default: 300, description: 'Largest age of X-Platform-Created-At, seconds', placeholder: 'SECONDS'},
		drainTimeout: {type: 'number', default: 25, description: 'On Ctrl+C or SIGTERM, time running jobs get to finish, seconds', placeholder: 'SECONDS'},
		dataDir: storeFlags.dataDir,
		retention: {type: 'string', default: '7d', description: 'How long events are kept (at least 24h: their ids are the exactly-once keys)', placeholder: 'DURATION'},
		maxEvents: {type: 'number', default: 100_000, description: 'Most events kept; the oldest go first', placeholder: 'N'},
		redis: {...storeFlags.redis, description: 'Share events and work with other replicas through Redis (env PLATFORM_REDIS_URL)'},
	},
	examples: [
		'platform-tui serve',
		'platform-tui serve --port 0 --json',
		'platform-tui serve --data-dir ./events --retention 3d',
		'PLATFORM_REDIS_URL=redis://127.0.0.1:6379 platform-tui serve --port 8081',
		'PLATFORM_ENDPOINT_SECRET="$NEW,$OLD" platform-tui serve --port 8080 --drain-timeout 25',
	],
	parse({flags, env}) {
		// Without --data-dir or PLATFORM_TUI_DATA_DIR, run uses the app's data folder.
		const {dataDir, redisUrl} = parseStore(flags, env);
		return {
			port: portFlag(flags, 'port', 8080),
			host: stringFlag(flags, 'host') ?? '127.0.0.1',
			concurrency: intFlag(flags, 'concurrency', {min: 1, max: 1000, fallback: 8}),
			toleranceSeconds: secondsFlag(flags, 'tolerance', {max: 86_400, fallbackSeconds: 300}) / 1000,
			drainTimeoutMs: secondsFlag(flags, 'drainTimeout', {max: 3600, fallbackSeconds: 25, allowZero: true}),
			...(dataDir ? {dataDir} : {}),
			retentionMs: durationFlag(flags, 'retention', {min: dayMs, max: 3650 * dayMs, fallbackMs: 7 * dayMs}),
			maxEvents: intFlag(flags, 'maxEvents', {min: 1000, max: 100_000_000, fallback: 100_000}),
			...(redisUrl ? {redisUrl} : {}),
		};
	},
	async run(options, deps) {
		const {context} = deps;
		const settings = deps.settings(['baseUrl', 'apiKey', 'appId', 'endpointSecret'], 'serve');
		const secrets = secretListFlag(settings.endpointSecret, 'endpointSecret');
		const directory = options.dataDir ?? defaultDataDir(context.env);
		const backend: EventBackend = await openBackend({
			...(options.redisUrl ? {redisUrl: options.redisUrl} : {}),
			directory,
			maxAgeMs: options.retentionMs,
			maxEntries: options.maxEvents,
		});
		const client = deps.client(settings);
		const keyStatus = keyStatusOf(deps, deps.apiKey(settings.apiKey));
		const model = settings.model ?? defaultModel;
		const receiver = createReceiver({
			client,
			secrets,
			backend,
			toleranceSeconds: options.toleranceSeconds,
			concurrency: options.concurrency,
			model,
			drainTimeoutMs: options.drainTimeoutMs,
			replayWindowMs: options.retentionMs,
		});
		const store = options.redisUrl ? `redis ${maskUrl(options.redisUrl)}` : `journal ${directory}`;
		// Subscribed before listening: what starts with it (events resumed from the journal) is kept
		// for the screen or the log, which attach a moment later.
		const events = replayingSource(receiver);
		let url: string;
		try {
			({url} = await receiver.listen({port: options.port, host: options.host}));
		} catch (error) {
			await receiver.close(0).catch(() => undefined);
			await client.close();
			throw listenError(error, options);
		}

		// Stops on Ctrl+C / SIGTERM through the context, or on q from the screen.
		const quit = new AbortController();
		const stopped = waitForAbort(context.signal, quit.signal);
		let app: ReturnType<typeof renderApp> | undefined;
		const log = lineWriter(context.stdout);
		const flushIntervalMs = 100;
		const key = keyStatus();
		const previousValid = key.previousKeyExpiresAt !== undefined && Date.parse(key.previousKeyExpiresAt) > Date.now();
		if (context.interactive) {
			// Ink and React load only for the screen; plain and NDJSON runs stay lean.
			const [{ServeScreen}, {renderApp}] = await Promise.all([import('../ui/serve/ServeScreen.js'), import('../ui/render.js')]);
			app = renderApp(context, (
				<ServeScreen
					source={events}
					url={url}
					secretCount={secrets.length}
					store={store}
					drainTimeoutMs={options.drainTimeoutMs}
					keyStatus={keyStatus}
					flushIntervalMs={flushIntervalMs}
					onQuit={force => {
						if (!force) {
							quit.abort();
							return;
						}

						// A second Ctrl+C: quit now, as the shell does on a second SIGINT.
						const open = receiver.counters().processing;
						app?.unmount();
						context.stderr.write(`Quit without waiting: ${plural(open, 'job')} left unfinished; ${options.redisUrl ? 'another replica takes them over' : 'the next serve on this data directory resumes them'}.\n`);
						process.exit(130);
					}}
				/>
			));
		} else if (context.json) {
			deps.writeJson({
				type: 'listening',
				at: new Date().toISOString(),
				url,
				webhookUrl: `${url}/webhook`,
				healthUrl: `${url}/health`,
				secrets: secrets.length,
				key: key.keyMasked,
				...(previousValid ? {previousKey: key.previousKeyMasked, previousKeyExpiresAt: key.previousKeyExpiresAt} : {}),
				model,
				concurrency: options.concurrency,
				toleranceSeconds: options.toleranceSeconds,
				drainTimeoutMs: options.drainTimeoutMs,
				backend: backend.kind,
				...(options.redisUrl ? {redis: maskUrl(options.redisUrl)} : {dataDir: directory}),
				retention: formatCompactDuration(options.retentionMs),
				maxEvents: options.maxEvents,
			});
			events.on('event', event => {
				log.line(JSON.stringify(event));
			});
		} else {
			const previous = previousValid ? `; previous key ${key.previousKeyMasked ?? ''} valid until ${key.previousKeyExpiresAt ?? ''}` : '';
			context.stdout.write(`Listening on ${url} (POST ${url}/webhook, GET ${url}/health); secrets ${secrets.length} ok; key ${key.keyMasked}${previous}; model ${model}; concurrency ${options.concurrency}; events in ${store}. Ctrl+C to stop.\n`);
			events.on('event', event => {
				log.line(plainLine(event));
			});
		}

		try {
			await stopped;
			await receiver.close(options.drainTimeoutMs);
		} finally {
			events.dispose();
			log.flush();
			await client.close();
			if (app) {
				// Let the last events render before the screen is released.
				await new Promise(resolve => {
					setTimeout(resolve, flushIntervalMs + 20);
				});
				app.unmount();
				await app.waitUntilExit();
			}
		}

		return 0;
	},
};

export default command;
