import {UserError} from '../../errors.js';
import {formatCompactDuration} from '../../format/duration.js';
import {errorCode} from '../../format/value.js';
import type {WebhookReceiver} from '../../receiver/server.js';
import type {Service} from '../../receiver/service.js';
import type {PlatformClient} from '../../platform/client.js';
import type {Command} from '../../cli/types.js';
import {parseServe, serveFlags, type ServeOptions} from './flags.js';
import {presentJson, presentPlain, type Started} from './present.js';
import {secretListFlag} from '../../cli/validators.js';
import {assemble, statusOf} from './receiving.js';
import {ReceivingSession} from './session.js';
import {plainLine} from '../../ui/serve/format.js';

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
		const settings = deps.settings(['baseUrl', 'apiKey', 'appId', 'endpointSecret'], 'serve');
		const parts = await assemble(options, deps, settings, secretListFlag(settings.endpointSecret, 'endpointSecret'), 'serve');
		const {secrets, directory, backend, client, service, keyStatus, model, receiver, store, volatileWarning, warning, folderWarnings, events} = parts;
		const {url, adminUrl} = await listenAll({receiver, service, client}, options);

		const session = new ReceivingSession(deps, parts, service.attach(receiver));
		const {now} = session;
		const key = keyStatus();
		const previousValid = key.previousKeyExpiresAt !== undefined && Date.parse(key.previousKeyExpiresAt) > deps.clock.now();
		const profile = deps.profile();
		const started: Started = {options, url, ...profile, secrets: secrets.length, key, previousValid, model, backend, directory, store, now, folderWarnings, ...(adminUrl ? {adminUrl} : {}), ...(warning ? {warning} : {})};
		const warnings = [...(warning ? [warning] : []), ...folderWarnings.map(found => found.message)];
		if (context.interactive) {
			await session.show({
				source: events,
				url,
				...profile,
				secretCount: secrets.length,
				store,
				...(warnings.length > 0 ? {warnings} : {}),
				drainTimeoutMs: options.drainTimeoutMs,
				keyStatus,
				health: () => statusOf(service, volatileWarning(), adminUrl),
			});
		} else {
			// Without the screen: the start as a record or a banner, then each event as a line or a record.
			(deps.output.json ? presentJson : presentPlain)(deps, started);
			events.on('event', event => {
				deps.output.print(event, () => `${plainLine(event)}\n`);
			});
		}

		session.followStatus();
		const cancelUnready = options.exitOnUnreadyMs === undefined ? () => undefined : service.exitWhenUnready(options.exitOnUnreadyMs / 1000, state => {
			session.exitCode = 1;
			context.stderr.write(`serve was not ready for ${formatCompactDuration(options.exitOnUnreadyMs ?? 0)} (${state.reasons.join('; ')}); stopping with exit code 1 so a supervisor restarts it.\n`);
			session.quit.abort();
		});
		return session.finish(options, 'serve', cancelUnready);
	},
};

export default command;
