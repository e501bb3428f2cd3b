/**
 * `platform-tui keys rotate`: its flags and options, and the rotation the core runs with this
 * run's client, store and clock; shown on the Ink screen (rotate-screen.ts) or as plain lines or
 * JSON (rotate-plain.ts).
 */
import {resolve} from 'node:path';
import {mask} from '../../format/secret.js';
import {currentApiKey} from '../../keys/current.js';
import {rotateApiKey, rotateApiKeyIfOlder, type RotateOptions as CoreRotateOptions, type RotationEvent} from '../../keys/rotate.js';
import {noArguments} from '../../cli/define.js';
import {readFlags} from '../../cli/flag-values.js';
import type {Command, FlagSpec} from '../../cli/types.js';
import {UsageError} from '../../cli/validators.js';
import {runPlain, type Rotate} from './rotate-plain.js';
import {runScreen} from './rotate-screen.js';

/** The rotate call is not retried blindly and never aborted once sent; this bounds it instead. */
const rotateTimeoutMs = 30_000;

export type RotateOptions = {
	yes: boolean;
	/** --if-older-than: rotate only a key older than this (ms); never prompts. */
	ifOlderThanMs?: number;
	/** --dotenv: a dotenv file that also gets the new key (an absolute path). */
	envFile?: string;
};

const dayMs = 86_400_000;

/** Each flag once, with its default and range. */
const rotateFlags = {
	yes: {type: 'boolean', default: false, shortFlag: 'y', description: 'Rotate without asking, and finish without waiting for a key (required when not on a terminal)'},
	ifOlderThan: {type: 'string', range: {kind: 'duration', min: 60_000, max: 3650 * dayMs}, description: 'Rotate only when the key is older than this (e.g. 30d); otherwise change nothing and exit 0. Never prompts', placeholder: 'DURATION'},
	// --env-file, its first name, still reads: but Node takes --env-file anywhere on its command line as its own and exits when the file does not exist yet.
	dotenv: {type: 'string', aliases: ['envFile'], description: 'Also write PLATFORM_API_KEY=<new key> into this dotenv file (other lines kept; created when missing; mode 0600)', placeholder: 'PATH'},
} satisfies Record<string, FlagSpec>;

const command: Command<RotateOptions> = {
	usage: 'platform-tui keys rotate [--yes] [--if-older-than 30d] [--dotenv PATH]',
	description: 'Rotate the API key: the platform issues a new key, one call checks that it works, and it is stored; the old key keeps working until the announced expiry. Rotations in several processes run one after another (the config file is locked), each rotating the key the one before stored. With --if-older-than (for cron and systemd timers) it never prompts and rotates only a key older than that.',
	flags: rotateFlags,
	examples: [
		'platform-tui keys rotate',
		'platform-tui keys rotate --yes --json',
		'platform-tui keys rotate --if-older-than 30d',
		'platform-tui keys rotate --if-older-than 30d --dotenv /etc/platform-tui/receiver.env',
	],
	parse(input) {
		noArguments(input, command);
		const {yes, ifOlderThan: ifOlderThanMs, dotenv} = readFlags(rotateFlags, input);
		return {
			yes,
			...(ifOlderThanMs === undefined ? {} : {ifOlderThanMs}),
			...(dotenv ? {envFile: resolve(dotenv)} : {}),
		};
	},
	async run(options, deps) {
		const {context} = deps;
		// --if-older-than is for timers: it never asks, so it needs no --yes.
		const unattended = options.ifOlderThanMs !== undefined;
		const screen = context.interactive && Boolean(context.stdin.isTTY) && !unattended;
		if (!screen && !options.yes && !unattended) {
			throw new UsageError('not-interactive', 'keys rotate asks for confirmation, and this is not an interactive terminal; pass --yes to rotate without asking: platform-tui keys rotate --yes');
		}

		// The new key is checked with one Get space call, made for the configured user and company.
		const settings = deps.settings(['baseUrl', 'apiKey', 'appId', 'userId', 'companyId', 'assistantId'], 'keys rotate');
		const store = deps.store();
		const current = currentApiKey({env: context.env, store}) ?? {key: settings.apiKey, source: 'stored' as const};
		// Rotating is the fix the key-age warning names; a skipped rotation prints it instead.
		const client = deps.client(settings, {}, {warnKeyAge: false});
		const verify = async (newKey: string) => {
			const checker = deps.client(settings, {apiKey: newKey, timeoutMs: rotateTimeoutMs}, {warnKeyAge: false});
			try {
				await checker.getSpace(settings.assistantId);
			} finally {
				await checker.close();
			}
		};

		const core = (onEvent?: (event: RotationEvent) => void): CoreRotateOptions => ({
			client,
			store,
			env: context.env,
			now: () => new Date(deps.clock.now()),
			call: {timeoutMs: rotateTimeoutMs},
			verify,
			...(options.envFile ? {envFile: options.envFile} : {}),
			...(onEvent ? {onEvent} : {}),
		});
		const {ifOlderThanMs} = options;
		const rotate: Rotate = async onEvent => (ifOlderThanMs === undefined ? rotateApiKey(core(onEvent)) : rotateApiKeyIfOlder({...core(onEvent), olderThanMs: ifOlderThanMs}));
		try {
			if (screen) {
				return await runScreen(deps, {currentKeyMasked: mask(current.key), source: current.source, baseUrl: client.baseUrl, yes: options.yes, rotate: async () => rotateApiKey(core())});
			}

			return await runPlain(deps, rotate);
		} finally {
			await client.close();
		}
	},
};

export default command;
