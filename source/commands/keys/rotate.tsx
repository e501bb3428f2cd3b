import {CancelledError, UserError} from '../../errors.js';
import {mask} from '../../format/secret.js';
import {resolve} from 'node:path';
import {formatCompactDuration} from '../../format/duration.js';
import {currentApiKey} from '../../keys/current.js';
import {rotateApiKey, rotateApiKeyIfOlder, type RotateOptions as CoreRotateOptions, type RotationEvent, type RotationOutcome, type RotationSkipped} from '../../keys/rotate.js';
import type {RotateScreenResult} from '../../ui/keys/RotateScreen.js';
import {envFileFailedMessage, envWarning, eventLine, expiryLine, malformedExpiryMessage, outcomeCode, screenResultLines, skippedLine, unsavedKeyLines, unverifiedMessage} from '../../ui/keys/outcome-text.js';
import {noArguments} from '../../cli/define.js';
import type {Deps} from '../../cli/deps.js';
import {readFlags} from '../../cli/flag-values.js';
import type {Command, FlagSpec} from '../../cli/types.js';
import {UsageError} from '../../cli/validators.js';
import {loadScreen} from '../../ui/react-build.js';

/** The rotate call is not retried blindly and never aborted once sent; this bounds it instead. */
const rotateTimeoutMs = 30_000;

export type RotateOptions = {
	yes: boolean;
	/** --if-older-than: rotate only a key older than this (ms); never prompts. */
	ifOlderThanMs?: number;
	/** --env-file: a dotenv file that also gets the new key (an absolute path). */
	envFile?: string;
};

type Rotate = (onEvent?: (event: RotationEvent) => void) => Promise<RotationOutcome | RotationSkipped>;

const dayMs = 86_400_000;

/** What follows the result on stderr: the unsaved key in full, an unknown expiry, the env override. */
function writeWarnings(deps: Deps, outcome: RotationOutcome): void {
	const {stderr} = deps.context;
	if (!outcome.stored) {
		stderr.write(unsavedKeyLines(outcome).join('\n'));
	}

	if (!outcome.expiresAt) {
		stderr.write(`Error: ${malformedExpiryMessage(outcome)}.\n`);
	}

	if (outcome.envOverride) {
		stderr.write(`${envWarning(outcome)}\n`);
	}

	if (outcome.verifyError) {
		stderr.write(`Warning: ${unverifiedMessage(outcome)}.\n`);
	}

	if (outcome.envFileError) {
		stderr.write(`Error: ${envFileFailedMessage(outcome)}.\n`);
	}
}

/** `--if-older-than` found the key young enough: one line (or object), and the key-age policy's warning. */
function reportSkipped(deps: Deps, skipped: RotationSkipped): number {
	deps.output.print({
		type: 'rotation',
		rotated: false,
		key: skipped.keyMasked,
		source: skipped.source,
		keySetAt: skipped.setAt,
		ageSeconds: Math.floor(skipped.ageMs / 1000),
		olderThan: formatCompactDuration(skipped.olderThanMs),
	}, `${skippedLine(skipped)}\n`);

	// The key stays in use: the policy may still find it too old.
	deps.warnKeyAge();
	return 0;
}

/** Non-interactive: plain lines (or one JSON object) and no full key, except when storing failed. */
async function runPlain(deps: Deps, rotate: Rotate): Promise<number> {
	const {context} = deps;
	const onAbort = () => {
		context.stderr.write('Waiting for the platform\'s answer so the new key is not lost; press Ctrl+C again to quit anyway.\n');
	};

	context.signal.throwIfAborted();
	context.signal.addEventListener('abort', onAbort, {once: true});
	let result: RotationOutcome | RotationSkipped;
	try {
		// Progress on stderr, the result on stdout: `keys rotate --yes > out` holds the result only.
		result = await rotate(event => {
			if (!deps.output.json) {
				context.stderr.write(`${eventLine(event)}\n`);
			}
		});
	} finally {
		context.signal.removeEventListener('abort', onAbort);
	}

	if (!result.rotated) {
		return reportSkipped(deps, result);
	}

	const outcome = result;
	const now = new Date(deps.clock.now());
	deps.output.print({
		type: 'rotation',
		rotated: true,
		key: outcome.newKeyMasked,
		previousKey: outcome.previousKeyMasked,
		expiresAt: outcome.expiresAt ?? null,
		overlapSeconds: outcome.expiresAt ? Math.max(0, Math.ceil((Date.parse(outcome.expiresAt) - now.getTime()) / 1000)) : null,
		rotatedAt: outcome.rotatedAt,
		stored: outcome.stored,
		path: outcome.configPath,
		envOverride: outcome.envOverride,
		verified: outcome.verified,
		...(outcome.envFile ? {envFile: outcome.envFile, envFileWritten: !outcome.envFileError} : {}),
	}, `${expiryLine(outcome, now)}\n`);

	writeWarnings(deps, outcome);
	return outcomeCode(outcome);
}

/** Interactive: the Ink screen, then the result as ordinary output. */
async function runScreen(deps: Deps, options: {currentKeyMasked: string; source: 'env' | 'stored'; baseUrl: string; yes: boolean; rotate: () => Promise<RotationOutcome>}): Promise<number> {
	const {context} = deps;
	let result: RotateScreenResult | undefined;
	let pending: Promise<RotationOutcome> | undefined;
	const rotateOnce = async () => {
		pending ??= options.rotate();
		return pending;
	};

	// Loaded only for the screen: Ink and React cost a non-interactive run (--yes --json, scripts)
	// most of its start-up.
	const [{RotateScreen}, {renderComponent, waitForApp}] = await loadScreen(async () => import('../../ui/keys/RotateScreen.js'));
	const instance = renderComponent(context, RotateScreen, {
		currentKeyMasked: options.currentKeyMasked,
		currentKeySource: options.source,
		baseUrl: options.baseUrl,
		skipConfirm: options.yes,
		rotate: rotateOnce,
		onDone(value: RotateScreenResult) {
			result = value;
		},
	}, {maxFps: 10});
	await waitForApp(instance, context.signal, () => {
		result ??= {kind: 'interrupted'};
	});

	if (!result || result.kind === 'interrupted') {
		// A rotation in flight still stores its key (the core does that before anything is shown);
		// wait for it, bounded by the call's timeout, so the process does not die mid-write.
		if (pending) {
			const settled = await pending.then(outcome => outcome, () => undefined);
			if (settled?.stored) {
				context.stderr.write(`Interrupted after the rotation finished: the new key ${settled.newKeyMasked} is stored; see \`platform-tui keys show\`.\n`);
			}
		}

		throw new CancelledError();
	}

	if (result.kind === 'cancelled') {
		throw new UserError('rotation-cancelled', 'Rotation cancelled; the key is unchanged');
	}

	if (result.kind === 'failed') {
		throw result.error;
	}

	context.stdout.write(`${screenResultLines(result.outcome, new Date(deps.clock.now())).join('\n')}\n`);
	writeWarnings(deps, result.outcome);
	return outcomeCode(result.outcome);
}

/** Each flag once, with its default and range. */
const rotateFlags = {
	yes: {type: 'boolean', default: false, shortFlag: 'y', description: 'Rotate without asking, and finish without waiting for a key (required when not on a terminal)'},
	ifOlderThan: {type: 'string', range: {kind: 'duration', min: 60_000, max: 3650 * dayMs}, description: 'Rotate only when the key is older than this (e.g. 30d); otherwise change nothing and exit 0. Never prompts', placeholder: 'DURATION'},
	envFile: {type: 'string', description: 'Also write PLATFORM_API_KEY=<new key> into this dotenv file (other lines kept; mode 0600)', placeholder: 'PATH'},
} satisfies Record<string, FlagSpec>;

const command: Command<RotateOptions> = {
	usage: 'platform-tui keys rotate [--yes] [--if-older-than 30d] [--env-file PATH]',
	description: 'Rotate the API key: the platform issues a new key, one call checks that it works, and it is stored; the old key keeps working until the announced expiry. Rotations in several processes run one after another (the config file is locked), each rotating the key the one before stored. With --if-older-than (for cron and systemd timers) it never prompts and rotates only a key older than that.',
	flags: rotateFlags,
	examples: [
		'platform-tui keys rotate',
		'platform-tui keys rotate --yes --json',
		'platform-tui keys rotate --if-older-than 30d',
		'platform-tui keys rotate --if-older-than 30d --env-file /etc/platform-tui/receiver.env',
	],
	parse(input) {
		noArguments(input, command);
		const {yes, ifOlderThan: ifOlderThanMs, envFile} = readFlags(rotateFlags, input);
		return {
			yes,
			...(ifOlderThanMs === undefined ? {} : {ifOlderThanMs}),
			...(envFile ? {envFile: resolve(envFile)} : {}),
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
