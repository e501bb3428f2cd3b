import {formatCountdown} from '../format/duration.js';
import {
	answerModes,
	apiOperations,
	eventSocketOperation,
	faultKinds,
	isLoopbackHost,
	LocalPlatformError,
	parseFaultRule,
	startLocalPlatform,
	type FaultRule,
	type LocalPlatformEvent,
	type LocalPlatformOptions,
	type LocalPlatformSettings,
} from '../local-platform/index.js';
import {waitForAbort} from '../cli/abort.js';
import type {Deps} from '../cli/deps.js';
import {firstSecret, readSecretFile, refuseSecretOnCommandLine, retiredSecretFlag, secretFileFlag, secretFilePath} from './secret-input.js';
import type {Command, CommandInput, FlagSpec} from '../cli/types.js';
import {readFlags} from '../cli/flag-values.js';
import {profileNameRange, sharedFlags} from '../cli/flags.js';
import {ConfigStore} from '../config/store.js';
import {storeSettingsWithKey} from '../keys/set.js';
import {UsageError} from '../cli/validators.js';

/** Port the command listens on unless --port says otherwise (in-process use picks a free port). */
export const defaultLocalPort = 4010;

const defaultKeyOverlapMs = 24 * 60 * 60 * 1000;

/** The start options (without the log, which run() adds) and how the banner describes them. */
/** The start options, and where to read the endpoint secret from (`--secret-file`), read when it runs. */
export type LocalOptions = {platform: Omit<LocalPlatformOptions, 'log'>; secretFile?: string; saveProfile?: string};

const exportNames: Array<[keyof LocalPlatformSettings, string]> = [
	['baseUrl', 'PLATFORM_BASE_URL'],
	['apiKey', 'PLATFORM_API_KEY'],
	['appId', 'PLATFORM_APP_ID'],
	['userId', 'PLATFORM_USER_ID'],
	['companyId', 'PLATFORM_COMPANY_ID'],
	['assistantId', 'PLATFORM_ASSISTANT_ID'],
	['endpointSecret', 'PLATFORM_ENDPOINT_SECRET'],
];

function shellQuote(value: string): string {
	return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll('\'', '\'\\\'\'')}'`;
}

/** The settings as `export NAME=value` lines, ready to paste into a POSIX shell. */
export function exportLines(settings: LocalPlatformSettings): string[] {
	return exportNames.map(([field, name]) => `export ${name}=${shellQuote(settings[field])}`);
}

function clock(at: string): string {
	return at.slice(11, 23);
}

/** One short human line per log event. */
export function describeEvent(event: LocalPlatformEvent): string {
	switch (event.type) {
		case 'request': {
			const fault = event.fault === undefined ? '' : `  (injected ${event.fault})`;
			return `${clock(event.at)}  ${event.method} ${event.path} → ${event.status}  ${event.durationMs} ms${fault}`;
		}

		case 'delivery': {
			const answer = event.status === null ? `no answer${event.error ? ` (${event.error})` : ''}` : String(event.status);
			return `${clock(event.at)}  webhook ${event.event} ${event.eventId} attempt ${event.attempt} → ${answer}  [${event.state}]`;
		}

		case 'ingestion': {
			return `${clock(event.at)}  content ${event.contentId} (${event.key}) → ${event.state}${event.error ? `: ${event.error}` : ''}`;
		}

		case 'key-rotated': {
			return `${clock(event.at)}  API key rotated; the old key works until ${event.oldKeyExpiresAt}`;
		}
	}
}

/** Every `--fault OPERATION:KIND[:TIMES]` rule, checked against the operations the platform serves. */
function faultRules(flags: Record<string, unknown>): FaultRule[] {
	const raw = flags.fault;
	const texts = raw === undefined ? [] : (Array.isArray(raw) ? raw : [raw]).map(String);
	return texts.map(text => {
		try {
			return parseFaultRule(text, [...apiOperations, eventSocketOperation]);
		} catch (error) {
			if (error instanceof LocalPlatformError) {
				throw new UsageError('flag-invalid', `--fault must be OPERATION:KIND or OPERATION:KIND:TIMES (KIND: ${faultKinds.join(', ')}; OPERATION: * or an operation such as createMessageLog, or eventSocket); got ${JSON.stringify(text)}.`);
			}

			throw error;
		}
	});
}

/** Reads and checks every flag into the start options; a bad value throws the one-style UsageError. */
export function parseLocal(input: CommandInput): LocalOptions {
	const {flags} = input;
	refuseSecretOnCommandLine(flags, 'endpointSecret');
	const values = readFlags(localFlags, input);
	// The global --app-id, --user-id and --company-id fix those ids instead of generating them.
	const ids = readFlags({appId: sharedFlags.appId, userId: sharedFlags.userId, companyId: sharedFlags.companyId}, {flags, env: {}});
	const platform: LocalOptions['platform'] = {port: values.port, host: values.host, keyOverlapMs: values.keyOverlap};
	const optional: Partial<LocalOptions['platform']> = {
		webhookUrl: values.webhookUrl,
		endpointSecret: firstSecret(input.env.PLATFORM_ENDPOINT_SECRET),
		llmUrl: values.llmUrl,
		llmModel: values.llmModel,
		...ids,
		failRate: values.failRate,
		latencyMs: values.latency,
		seed: values.seed,
		ingestionStepMs: values.ingestionStep,
		answers: values.answers,
		eventSocketMaxAgeMs: values.eventSocketMaxAge,
		eventSocketGoLiveMs: values.eventSocketGoLive,
	};
	const faults = faultRules(flags);
	const secretFile = secretFilePath(flags);
	return {
		platform: {...platform, ...definedOnly(optional), ...(faults.length === 0 ? {} : {faults})},
		...(secretFile === undefined ? {} : {secretFile}),
		...(values.saveProfile === undefined ? {} : {saveProfile: values.saveProfile}),
	};
}

function definedOnly<T extends Record<string, unknown>>(value: T): Partial<T> {
	return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;
}

function bannerNotes(options: LocalOptions['platform'], webhookUrl: string | undefined): string {
	const notes = [
		`key overlap ${formatCountdown(options.keyOverlapMs ?? defaultKeyOverlapMs)}`,
		webhookUrl === undefined ? 'no webhook URL (the built-in assistant answers)' : `webhook URL ${webhookUrl}`,
		options.llmUrl === undefined ? 'local model' : `model proxied to ${options.llmUrl}`,
	];
	if (options.answers === 'sparse') {
		notes.push('sparse answers (only the fields the contract promises)');
	}

	if ((options.failRate ?? 0) > 0) {
		notes.push(`fail rate ${options.failRate}`);
	}

	if ((options.latencyMs ?? 0) > 0) {
		notes.push(`latency ${options.latencyMs} ms`);
	}

	for (const rule of options.faults ?? []) {
		notes.push(`fault ${rule.operation}:${rule.kind}${rule.times === undefined ? '' : `:${rule.times}`}`);
	}

	return `# ${notes.join(', ')}`;
}

async function run(options: LocalOptions, deps: Deps): Promise<number> {
	const {context, output} = deps;

	const llmApiKey = context.env.PLATFORM_LOCAL_LLM_API_KEY;
	const endpointSecret = options.secretFile === undefined ? undefined : await readSecretFile(options.secretFile, context);
	const platform = await startLocalPlatform({
		...options.platform,
		...(endpointSecret === undefined ? {} : {endpointSecret}),
		...(llmApiKey === undefined || llmApiKey === '' ? {} : {llmApiKey}),
		// The request log: records with --json, else lines on stderr (stdout holds the export lines).
		log: output.json
			? event => {
				output.print(event);
			}
			: event => {
				context.stderr.write(`${describeEvent(event)}\n`);
			},
	});
	const settings = platform.settings();
	const saved = options.saveProfile === undefined ? undefined : await saveProfile(options.saveProfile, settings, deps).catch(async (error: unknown) => {
		await platform.close();
		throw error;
	});
	output.print({type: 'local-platform', ...settings}, () => [
		...(saved ? [`# Saved in profile ${saved.profile} of ${saved.path}: another terminal needs only --profile ${saved.profile} (or PLATFORM_PROFILE=${saved.profile}).`] : []),
		`# Local platform on ${settings.baseUrl} — paste these lines into another shell, Ctrl+C stops it.`,
		...exportLines(settings),
		bannerNotes(options.platform, platform.webhookUrl),
	].map(line => `${line}\n`).join(''));
	if (saved) {
		output.print({type: 'stored', name: 'profile', value: saved.profile, path: saved.path});
	}

	await waitForAbort(context.signal);
	await platform.close();
	if (!output.json) {
		context.stderr.write('Local platform stopped.\n');
	}

	return 0;
}

/** Stores the local platform's address, key, ids and endpoint secret in the profile `profile` (created when new). */
async function saveProfile(profile: string, settings: LocalPlatformSettings, deps: Deps): Promise<{profile: string; path: string}> {
	const store = new ConfigStore(deps.context.env, {profile});
	await storeSettingsWithKey(store, {...settings}, new Date(deps.clock.now()));
	return {profile, path: store.path};
}

/** Each flag once: its default, range and help. */
const localFlags = {
	port: {type: 'number', default: defaultLocalPort, range: {kind: 'int', min: 0, max: 65_535}, description: 'Port to listen on (0 picks a free one)', placeholder: 'N'},
	host: {type: 'string', default: '127.0.0.1', range: {kind: 'check', test: isLoopbackHost, rule: 'a loopback address (127.0.0.1, ::1 or localhost)', example: '127.0.0.1'}, description: 'Loopback address to bind', placeholder: 'HOST'},
	webhookUrl: {type: 'string', range: {kind: 'url', protocols: ['http:', 'https:']}, description: 'Register an application (external module) at this loopback URL', placeholder: 'URL'},
	...secretFileFlag,
	endpointSecret: retiredSecretFlag,
	keyOverlap: {type: 'string', default: '24h', range: {kind: 'duration', min: 0, max: 365 * defaultKeyOverlapMs}, description: 'How long a rotated-out key keeps working, e.g. 24h, 90s, 500ms', placeholder: 'DURATION'},
	failRate: {type: 'number', range: {kind: 'number', min: 0, max: 1, example: 0.1}, description: 'Answer this share of API calls with 429 or 503 (0 to 1)', placeholder: 'RATE'},
	latency: {type: 'number', range: {kind: 'int', min: 0, max: 600_000, example: 0}, description: 'Delay every answer by this many milliseconds', placeholder: 'MS'},
	seed: {type: 'number', range: {kind: 'int', min: 0, max: 4_294_967_295, example: 0}, description: 'Seed that makes --fail-rate deterministic', placeholder: 'N'},
	fault: {type: 'string', isMultiple: true, description: 'Fault for an operation: 429, 500, 503 (refused), perform-502 (done, then 502), empty-200 (done, then null) or slow (done, answered 16 s late); eventSocket:drop answers a stream and closes it at once; repeatable', placeholder: 'OP:KIND[:TIMES]'},
	llmUrl: {type: 'string', range: {kind: 'url', protocols: ['http:', 'https:']}, description: 'Proxy chat completions to this OpenAI-compatible loopback endpoint', placeholder: 'URL'},
	llmModel: {type: 'string', description: 'Model name sent to --llm-url (default: the requested model)', placeholder: 'NAME'},
	ingestionStep: {type: 'number', range: {kind: 'int', min: 0, max: 600_000, example: 150}, description: 'Milliseconds spent in each ingestion state (default 150)', placeholder: 'MS'},
	saveProfile: {type: 'string', complete: 'profile', range: profileNameRange, description: 'Store the address, key, ids and endpoint secret in this profile of the config file (created or overwritten), so another terminal uses --profile NAME instead of the export lines', placeholder: 'NAME'},
	eventSocketMaxAge: {type: 'string', default: '10m', range: {kind: 'duration', min: 1, max: 24 * 60 * 60 * 1000}, description: 'Close every event-socket stream this long after it opened, without warning (the platform: 10m)', placeholder: 'DURATION'},
	eventSocketGoLive: {type: 'number', range: {kind: 'int', min: 0, max: 600_000, example: 300}},
	answers: {type: 'string', default: 'full', range: {kind: 'choice', choices: answerModes}, description: 'full: whole records; sparse: only the fields the contract promises', placeholder: 'full|sparse'},
} satisfies Record<string, FlagSpec>;

const command: Command<LocalOptions> = {
	usage: 'platform-tui local [options]',
	description: 'Run the local platform, a stand-in for the real service (in memory, loopback only)',
	flags: {
		...localFlags,
	},
	examples: [
		'platform-tui local',
		'platform-tui local --port 4010 --webhook-url http://127.0.0.1:8080/webhook',
		'platform-tui local --json --key-overlap 90s --fail-rate 0.2 --seed 7',
		'platform-tui local --fault createMessageLog:perform-502:1 --fault createChat:empty-200',
		'platform-tui local --answers sparse',
		'platform-tui local --save-profile local   # then, in another terminal: platform-tui --profile local upload ./docs',
		'platform-tui local --llm-url http://127.0.0.1:11434/v1 --llm-model llama3.2',
	],
	parse: parseLocal,
	run,
};

export default command;
