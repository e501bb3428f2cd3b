import {UserError} from '../errors.js';
import {
	formatDuration,
	parseDuration,
	startLocalPlatform,
	type LocalPlatform,
	type LocalPlatformEvent,
	type LocalPlatformOptions,
	type LocalPlatformSettings,
} from '../local-platform/index.js';
import type {CommandContext, CommandModule} from './legacy-types.js';

/** Port the command listens on unless --port says otherwise (in-process use picks a free port). */
export const defaultLocalPort = 4010;

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

function optionalString(value: unknown): string | undefined {
	return typeof value === 'string' && value !== '' ? value : undefined;
}

function optionalNumber(value: unknown): number | undefined {
	return typeof value === 'number' && !Number.isNaN(value) ? value : undefined;
}

/** Maps the command's flags to start options; throws UserError on a bad value. */
export function optionsFromFlags(flags: Record<string, unknown>): LocalPlatformOptions {
	const options: LocalPlatformOptions = {
		port: optionalNumber(flags.port) ?? defaultLocalPort,
		host: optionalString(flags.host) ?? '127.0.0.1',
	};
	const keyOverlap = optionalString(flags.keyOverlap);
	if (keyOverlap !== undefined) {
		try {
			options.keyOverlapMs = parseDuration(keyOverlap);
		} catch (error) {
			throw new UserError(`--key-overlap: ${error instanceof Error ? error.message : String(error)}`);
		}
	}

	const strings = {
		webhookUrl: optionalString(flags.webhookUrl),
		endpointSecret: optionalString(flags.endpointSecret),
		llmUrl: optionalString(flags.llmUrl),
		llmModel: optionalString(flags.llmModel),
		// The global --app-id, --user-id and --company-id fix those ids instead of generating them.
		appId: optionalString(flags.appId),
		userId: optionalString(flags.userId),
		companyId: optionalString(flags.companyId),
	};
	for (const [name, value] of Object.entries(strings)) {
		if (value !== undefined) {
			options[name as keyof typeof strings] = value;
		}
	}

	const numbers = {
		failRate: optionalNumber(flags.failRate),
		latencyMs: optionalNumber(flags.latency),
		seed: optionalNumber(flags.seed),
		ingestionStepMs: optionalNumber(flags.ingestionStep),
	};
	for (const [name, value] of Object.entries(numbers)) {
		if (value !== undefined) {
			options[name as keyof typeof numbers] = value;
		}
	}

	const port = options.port ?? defaultLocalPort;
	if (!Number.isInteger(port) || port < 0 || port > 65_535) {
		throw new UserError(`--port must be a whole number from 0 to 65535, got ${port}.`);
	}

	if (options.failRate !== undefined && (options.failRate < 0 || options.failRate > 1)) {
		throw new UserError(`--fail-rate must be between 0 and 1, got ${options.failRate}.`);
	}

	for (const [flag, value] of [['--latency', options.latencyMs], ['--ingestion-step', options.ingestionStepMs]] as const) {
		if (value !== undefined && value < 0) {
			throw new UserError(`${flag} must not be negative, got ${value}.`);
		}
	}

	return options;
}

function waitForAbort(signal: AbortSignal): Promise<void> {
	return new Promise(resolve => {
		if (signal.aborted) {
			resolve();
			return;
		}

		signal.addEventListener('abort', () => {
			resolve();
		}, {once: true});
	});
}

async function run(context: CommandContext): Promise<number> {
	const options = optionsFromFlags(context.flags);
	const write = (stream: NodeJS.WritableStream, line: string): void => {
		stream.write(`${line}\n`);
	};

	options.log = context.json
		? event => {
			write(context.stdout, JSON.stringify(event));
		}
		: event => {
			write(context.stderr, describeEvent(event));
		};
	const llmApiKey = optionalString(context.env.PLATFORM_LOCAL_LLM_API_KEY);
	if (llmApiKey !== undefined) {
		options.llmApiKey = llmApiKey;
	}

	let platform: LocalPlatform;
	try {
		platform = await startLocalPlatform(options);
	} catch (error) {
		const code = (error as {code?: unknown}).code;
		if (code === 'EADDRINUSE') {
			throw new UserError(`Port ${options.port} is already in use; pick another with --port N (0 picks a free one).`);
		}

		throw new UserError(error instanceof Error ? error.message : String(error));
	}

	const settings = platform.settings();
	if (context.json) {
		write(context.stdout, JSON.stringify(settings));
	} else {
		write(context.stdout, `# Local platform on ${settings.baseUrl} — paste these lines into another shell, Ctrl+C stops it.`);
		for (const line of exportLines(settings)) {
			write(context.stdout, line);
		}

		const notes = [
			`key overlap ${formatDuration(options.keyOverlapMs ?? 24 * 60 * 60 * 1000)}`,
			platform.webhookUrl === undefined ? 'no webhook URL (the built-in assistant answers)' : `webhook URL ${platform.webhookUrl}`,
			options.llmUrl === undefined ? 'local model' : `model proxied to ${options.llmUrl}`,
		];
		if ((options.failRate ?? 0) > 0) {
			notes.push(`fail rate ${options.failRate}`);
		}

		if ((options.latencyMs ?? 0) > 0) {
			notes.push(`latency ${options.latencyMs} ms`);
		}

		write(context.stdout, `# ${notes.join(', ')}`);
	}

	await waitForAbort(context.signal);
	await platform.close();
	if (!context.json) {
		write(context.stderr, 'Local platform stopped.');
	}

	return 0;
}

const command: CommandModule = {
	usage: 'platform-tui local [options]',
	description: 'Run the local platform, a stand-in for the real service (in memory, loopback only)',
	flags: {
		port: {type: 'number', default: defaultLocalPort, description: 'Port to listen on (0 picks a free one)', placeholder: 'N'},
		host: {type: 'string', default: '127.0.0.1', description: 'Loopback address to bind', placeholder: 'HOST'},
		webhookUrl: {type: 'string', description: 'Register an application (external module) at this loopback URL', placeholder: 'URL'},
		endpointSecret: {type: 'string', description: 'Webhook signing secret (generated when absent)', placeholder: 'SECRET'},
		keyOverlap: {type: 'string', default: '24h', description: 'How long a rotated-out key keeps working, e.g. 24h, 90s, 500ms', placeholder: 'DURATION'},
		failRate: {type: 'number', description: 'Answer this share of API calls with 429 or 503 (0 to 1)', placeholder: 'RATE'},
		latency: {type: 'number', description: 'Delay every answer by this many milliseconds', placeholder: 'MS'},
		seed: {type: 'number', description: 'Seed that makes --fail-rate deterministic', placeholder: 'N'},
		llmUrl: {type: 'string', description: 'Proxy chat completions to this OpenAI-compatible loopback endpoint', placeholder: 'URL'},
		llmModel: {type: 'string', description: 'Model name sent to --llm-url (default: the requested model)', placeholder: 'NAME'},
		ingestionStep: {type: 'number', description: 'Milliseconds spent in each ingestion state (default 150)', placeholder: 'MS'},
	},
	examples: [
		'platform-tui local',
		'platform-tui local --port 4010 --webhook-url http://127.0.0.1:8080/webhook',
		'platform-tui local --json --key-overlap 90s --fail-rate 0.2 --seed 7',
		'platform-tui local --llm-url http://127.0.0.1:11434/v1 --llm-model llama3.2',
	],
	run,
};

export default command;
