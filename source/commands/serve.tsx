import {defaultModel, mask} from '../config/settings.js';
import {apiKeySupplier} from '../config/resolve.js';
import {UserError} from '../errors.js';
import {createReceiver} from '../receiver/index.js';
import {plainLine} from '../ui/serve/format.js';
import type {KeyStatus} from '../ui/serve/ServeScreen.js';
import type {renderApp} from '../ui/render.js';
import {createClient, settingsFor, writeJson} from './shared.js';
import type {CommandContext, CommandModule} from './legacy-types.js';

type ServeFlags = {port: number; host: string; concurrency: number; toleranceSeconds: number; drainTimeoutMs: number};

function numberFlag(context: CommandContext, name: string, fallback: number): number {
	const value = context.flags[name];
	return typeof value === 'number' ? value : fallback;
}

function readFlags(context: CommandContext): ServeFlags {
	const port = numberFlag(context, 'port', 8080);
	if (!Number.isInteger(port) || port < 0 || port > 65_535) {
		throw new UserError(`--port must be a whole number from 0 to 65535 (0 picks a free port); got ${port}`);
	}

	const host = typeof context.flags.host === 'string' && context.flags.host.trim() !== '' ? context.flags.host.trim() : '127.0.0.1';
	const concurrency = numberFlag(context, 'concurrency', 8);
	if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 1000) {
		throw new UserError(`--concurrency must be a whole number from 1 to 1000; got ${concurrency}`);
	}

	const tolerance = numberFlag(context, 'tolerance', 300);
	if (!Number.isFinite(tolerance) || tolerance <= 0) {
		throw new UserError(`--tolerance must be a positive number of seconds; got ${tolerance}`);
	}

	const drain = numberFlag(context, 'drainTimeout', 25);
	if (!Number.isFinite(drain) || drain < 0 || drain > 3600) {
		throw new UserError(`--drain-timeout must be a number of seconds from 0 to 3600; got ${drain}`);
	}

	return {port, host, concurrency, toleranceSeconds: tolerance, drainTimeoutMs: Math.round(drain * 1000)};
}

/**
 * Collects log lines and writes them at most every 10 ms: under load one write carries many lines
 * instead of a system call per event.
 */
function lineWriter(stream: NodeJS.WritableStream): {line(text: string): void; flush(): void} {
	let pending: string[] = [];
	let scheduled = false;
	const flush = () => {
		scheduled = false;
		if (pending.length > 0) {
			const text = pending.join('');
			pending = [];
			stream.write(text);
		}
	};

	return {
		line(text) {
			pending.push(`${text}\n`);
			if (!scheduled) {
				scheduled = true;
				setTimeout(flush, 10);
			}
		},
		flush,
	};
}

function listenError(error: unknown, flags: ServeFlags): Error {
	const code = (error as {code?: unknown}).code;
	if (code === 'EADDRINUSE') {
		return new UserError(`Port ${flags.port} on ${flags.host} is already in use; stop whatever holds it or pass --port with another port (--port 0 picks a free one)`);
	}

	if (code === 'EACCES') {
		return new UserError(`Not allowed to listen on ${flags.host}:${flags.port}; use a port above 1023 (--port 8080)`);
	}

	if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
		return new UserError(`Cannot listen on ${flags.host}: the address is not on this machine; pass --host 127.0.0.1 (or 0.0.0.0 for every interface)`);
	}

	return error instanceof Error ? error : new Error(String(error));
}

const command: CommandModule = {
	usage: 'platform-tui serve [--port 8080] [--host 127.0.0.1] [--concurrency 8] [--tolerance 300] [--drain-timeout 25]',
	description: 'Run the webhook receiver (POST /webhook, GET /health) with a live event log',
	flags: {
		port: {type: 'number', default: 8080, description: 'Port to listen on; 0 picks a free one', placeholder: 'N'},
		host: {type: 'string', default: '127.0.0.1', description: 'Address to listen on (0.0.0.0 for every interface)', placeholder: 'HOST'},
		concurrency: {type: 'number', default: 8, description: 'Chosen-module events answered at once', placeholder: 'N'},
		tolerance: {type: 'number', default: 300, description: 'Largest age of X-Platform-Created-At, seconds', placeholder: 'SECONDS'},
		drainTimeout: {type: 'number', default: 25, description: 'On Ctrl+C or SIGTERM, time running jobs get to finish, seconds', placeholder: 'SECONDS'},
	},
	examples: [
		'platform-tui serve',
		'platform-tui serve --port 0 --json',
		'PLATFORM_ENDPOINT_SECRET="$NEW,$OLD" platform-tui serve --port 8080 --drain-timeout 25',
	],
	async run(context) {
		const flags = readFlags(context);
		const {settings, store} = settingsFor(context, ['baseUrl', 'apiKey', 'appId', 'endpointSecret'], 'serve');
		const secrets = settings.endpointSecret.split(',').map(secret => secret.trim()).filter(secret => secret !== '');
		if (secrets.length === 0) {
			throw new UserError('The endpoint secret is empty; set PLATFORM_ENDPOINT_SECRET (several may be given, comma-separated) or run `platform-tui config set endpointSecret --stdin`');
		}

		const client = createClient(context, settings, store);
		const currentKey = apiKeySupplier({env: context.env, store, fallback: settings.apiKey});
		const keyStatus = (): KeyStatus => {
			const rotation = store.rotation();
			return {
				keyMasked: mask(currentKey()),
				...(rotation.previousKeyMasked ? {previousKeyMasked: rotation.previousKeyMasked} : {}),
				...(rotation.previousKeyExpiresAt ? {previousKeyExpiresAt: rotation.previousKeyExpiresAt} : {}),
			};
		};

		const model = settings.model ?? defaultModel;
		const receiver = createReceiver({
			client,
			secrets,
			toleranceSeconds: flags.toleranceSeconds,
			concurrency: flags.concurrency,
			model,
			drainTimeoutMs: flags.drainTimeoutMs,
		});

		let url: string;
		try {
			({url} = await receiver.listen({port: flags.port, host: flags.host}));
		} catch (error) {
			await client.close();
			throw listenError(error, flags);
		}

		const quit = new AbortController();
		const stopRequested = new Promise<void>(resolve => {
			const done = () => {
				resolve();
			};

			if (context.signal.aborted) {
				done();
				return;
			}

			context.signal.addEventListener('abort', done, {once: true});
			quit.signal.addEventListener('abort', done, {once: true});
		});

		let app: ReturnType<typeof renderApp> | undefined;
		const log = lineWriter(context.stdout);
		const flushIntervalMs = 100;
		if (context.interactive) {
			// Ink and React load only for the screen; plain and NDJSON runs stay lean.
			const [{replayingSource, ServeScreen}, {renderApp}] = await Promise.all([import('../ui/serve/ServeScreen.js'), import('../ui/render.js')]);
			app = renderApp(context, (
				<ServeScreen
					source={replayingSource(receiver)}
					url={url}
					secretCount={secrets.length}
					drainTimeoutMs={flags.drainTimeoutMs}
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
						context.stderr.write(`Quit without waiting: ${open} job${open === 1 ? '' : 's'} left unfinished; ${open === 1 ? 'its' : 'their'} logs may stay RUNNING.\n`);
						process.exit(130);
					}}
				/>
			));
		} else if (context.json) {
			const key = keyStatus();
			writeJson(context, {
				type: 'listening',
				at: new Date().toISOString(),
				url,
				webhookUrl: `${url}/webhook`,
				healthUrl: `${url}/health`,
				secrets: secrets.length,
				key: key.keyMasked,
				...(key.previousKeyExpiresAt && Date.parse(key.previousKeyExpiresAt) > Date.now() ? {previousKey: key.previousKeyMasked, previousKeyExpiresAt: key.previousKeyExpiresAt} : {}),
				model,
				concurrency: flags.concurrency,
				toleranceSeconds: flags.toleranceSeconds,
				drainTimeoutMs: flags.drainTimeoutMs,
			});
			receiver.on('event', event => {
				log.line(JSON.stringify(event));
			});
		} else {
			const key = keyStatus();
			const previous = key.previousKeyExpiresAt && Date.parse(key.previousKeyExpiresAt) > Date.now()
				? `; previous key ${key.previousKeyMasked ?? ''} valid until ${key.previousKeyExpiresAt}`
				: '';
			context.stdout.write(`Listening on ${url} (POST ${url}/webhook, GET ${url}/health); secrets ${secrets.length} ok; key ${key.keyMasked}${previous}; model ${model}; concurrency ${flags.concurrency}. Ctrl+C to stop.\n`);
			receiver.on('event', event => {
				log.line(plainLine(event));
			});
		}

		try {
			await stopRequested;
			await receiver.close(flags.drainTimeoutMs);
		} finally {
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
