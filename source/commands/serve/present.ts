/** How a serve without its screen tells what it does: NDJSON records, or plain lines. */
import {formatCompactDuration} from '../../format/duration.js';
import {maskUrl} from '../../format/secret.js';
import type {EventBackend, StoreDurability} from '../../receiver/store/backend.js';
import {clock} from '../../ui/serve/format.js';
import type {KeyStatus} from '../../ui/serve/ServeScreen.js';
import type {replayingSource} from '../../ui/serve/source.js';
import type {Deps} from '../../cli/deps.js';
import type {ServeOptions} from './flags.js';
import type {StartWarning} from './start.js';

/** The receiver's event log as serve and listen read it. */
export type EventLog = ReturnType<typeof replayingSource>;

/** `on`, `off` or `unknown`: Redis persistence as the listening line and the warning's code name it. */
function persistenceWord(durability: StoreDurability): 'on' | 'off' | 'unknown' {
	return durability.state === 'persistent' ? 'on' : (durability.state === 'volatile' ? 'off' : 'unknown');
}

/** What a started serve tells its presenter: where it listens and with what. */
export type Started = {
	options: ServeOptions;
	url: string;
	/** The profile of the config file, when it is not `default`. */
	profile?: string;
	adminUrl?: string;
	secrets: number;
	key: KeyStatus;
	previousValid: boolean;
	model: string;
	backend: EventBackend;
	directory: string;
	store: string;
	warning?: string;
	/** Folders other users can reach (start.ts): said once at start. */
	folderWarnings: StartWarning[];
	now: () => string;
};

/** The start told in NDJSON: a `listening` record and the start-up warnings (serve.ts prints the events). */
export function presentJson(deps: Deps, started: Started): void {
	const {options, url, key, previousValid, model, backend, directory, adminUrl, warning, now} = started;
	const rate = options.platformRate;
	deps.output.print({
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
		deps.output.print({type: 'warning', at: now(), code: `redis-persistence-${persistenceWord(backend.durability)}`, message: warning});
	}

	for (const {code, message} of started.folderWarnings) {
		deps.output.print({type: 'warning', at: now(), code, message});
	}
}

/** The start told in plain words: the start-up banner on stderr (serve.ts prints the events on stdout). */
export function presentPlain(deps: Deps, started: Started): void {
	const {context} = deps;
	const {options, url, key, previousValid, model, adminUrl, warning, store, now} = started;
	const previous = previousValid
		? (key.storedKeyMasked
			? `; this key was rotated out and works until ${key.previousKeyExpiresAt ?? ''}: restart with PLATFORM_API_KEY set to the stored key ${key.storedKeyMasked} (or unset)`
			: `; previous key ${key.previousKeyMasked ?? ''} valid until ${key.previousKeyExpiresAt ?? ''}`)
		: '';
	const keyFrom = key.source === 'env' ? ' from PLATFORM_API_KEY (a rotated key is used only after a restart with the new value)' : '';
	const admin = adminUrl ? `; admin ${adminUrl} (/livez, /readyz, /metrics)` : '';
	const handling = options.forwardTo ? `forwarding to ${options.forwardTo}` : `model ${model}`;
	// The start-up banner and a start-up warning are diagnostics (stderr, one write, in order);
	// the event log is serve's output (stdout).
	const warningLine = [...(warning ? [warning] : []), ...started.folderWarnings.map(found => found.message)].map(text => `${clock(now())}  warning: ${text}\n`).join('');
	const profile = started.profile === undefined ? '' : ` with profile ${started.profile}`;
	context.stderr.write(`Listening on ${url}${profile} (POST ${url}/webhook, GET ${url}/health)${admin}; secrets ${started.secrets} ok; key ${key.keyMasked}${keyFrom}${previous}; ${handling}; concurrency ${options.concurrency}; events in ${store}. Ctrl+C to stop.\n${warningLine}`);
}

