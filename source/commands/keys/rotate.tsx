import {CancelledError, UserError} from '../../errors.js';
import {mask} from '../../format/secret.js';
import {currentApiKey} from '../../keys/current.js';
import {rotateApiKey, type RotationEvent, type RotationOutcome} from '../../keys/rotate.js';
import type {RotateScreenResult} from '../../ui/keys/RotateScreen.js';
import {envWarning, eventLine, expiryLine, malformedExpiryMessage, outcomeCode, screenResultLines, unsavedKeyLines} from '../../ui/keys/outcome-text.js';
import {noArguments} from '../define.js';
import type {Deps} from '../deps.js';
import type {Command} from '../types.js';
import {booleanFlag, UsageError} from '../validators.js';

/** The rotate call is not retried blindly and never aborted once sent; this bounds it instead. */
const rotateTimeoutMs = 30_000;

export type RotateOptions = {yes: boolean};

type Rotate = (onEvent?: (event: RotationEvent) => void) => Promise<RotationOutcome>;

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
}

/** Non-interactive: plain lines (or one JSON object) and no full key, except when storing failed. */
async function runPlain(deps: Deps, rotate: Rotate): Promise<number> {
	const {context} = deps;
	const onAbort = () => {
		context.stderr.write('Waiting for the platform\'s answer so the new key is not lost; press Ctrl+C again to quit anyway.\n');
	};

	context.signal.throwIfAborted();
	context.signal.addEventListener('abort', onAbort, {once: true});
	let outcome: RotationOutcome;
	try {
		outcome = await rotate(event => {
			if (!context.json) {
				context.stdout.write(`${eventLine(event)}\n`);
			}
		});
	} finally {
		context.signal.removeEventListener('abort', onAbort);
	}

	const now = new Date(deps.clock.now());
	if (context.json) {
		deps.writeJson({
			type: 'rotated',
			key: outcome.newKeyMasked,
			previousKey: outcome.previousKeyMasked,
			expiresAt: outcome.expiresAt ?? null,
			overlapSeconds: outcome.expiresAt ? Math.max(0, Math.ceil((Date.parse(outcome.expiresAt) - now.getTime()) / 1000)) : null,
			rotatedAt: outcome.rotatedAt,
			stored: outcome.stored,
			path: outcome.configPath,
			envOverride: outcome.envOverride,
		});
	} else {
		context.stdout.write(`${expiryLine(outcome, now)}\n`);
	}

	writeWarnings(deps, outcome);
	return outcomeCode(outcome);
}

/** Interactive: the Ink screen, then the result as ordinary output. */
async function runScreen(deps: Deps, options: {currentKeyMasked: string; source: 'env' | 'stored'; baseUrl: string; yes: boolean; rotate: Rotate}): Promise<number> {
	const {context} = deps;
	let result: RotateScreenResult | undefined;
	let pending: Promise<RotationOutcome> | undefined;
	const rotateOnce = async () => {
		pending ??= options.rotate();
		return pending;
	};

	// Loaded only for the screen: Ink and React cost a non-interactive run (--yes --json, scripts)
	// most of its start-up.
	const [{RotateScreen}, {renderApp, waitForApp}] = await Promise.all([import('../../ui/keys/RotateScreen.js'), import('../../ui/render.js')]);
	const instance = renderApp(context, (
		<RotateScreen
			currentKeyMasked={options.currentKeyMasked}
			currentKeySource={options.source}
			baseUrl={options.baseUrl}
			skipConfirm={options.yes}
			rotate={rotateOnce}
			onDone={value => {
				result = value;
			}}
		/>
	), {maxFps: 10});
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

const command: Command<RotateOptions> = {
	name: ['keys', 'rotate'],
	summary: 'Rotate the API key; the old key keeps working until it expires',
	usage: 'platform-tui keys rotate [--yes]',
	description: 'Rotate the API key: the platform issues a new key and the old one keeps working until the announced expiry. Rotations in several processes run one after another (the config file is locked), each rotating the key the one before stored.',
	flags: {
		yes: {type: 'boolean', default: false, shortFlag: 'y', description: 'Rotate without asking, and finish without waiting for a key (required when not on a terminal)'},
	},
	examples: ['platform-tui keys rotate', 'platform-tui keys rotate --yes', 'platform-tui keys rotate --yes --json'],
	parse(input) {
		noArguments(input, command);

		return {yes: booleanFlag(input.flags, 'yes')};
	},
	async run(options, deps) {
		const {context} = deps;
		const screen = context.interactive && Boolean(context.stdin.isTTY);
		if (!screen && !options.yes) {
			throw new UsageError('not-interactive', 'keys rotate asks for confirmation, and this is not an interactive terminal; pass --yes to rotate without asking: platform-tui keys rotate --yes');
		}

		const settings = deps.settings(['baseUrl', 'apiKey', 'appId'], 'keys rotate');
		const store = deps.store();
		const current = currentApiKey({env: context.env, store}) ?? {key: settings.apiKey, source: 'stored' as const};
		const client = deps.client(settings);
		const rotate: Rotate = async onEvent => rotateApiKey({
			client,
			store,
			env: context.env,
			call: {timeoutMs: rotateTimeoutMs},
			...(onEvent ? {onEvent} : {}),
		});
		try {
			if (screen) {
				return await runScreen(deps, {currentKeyMasked: mask(current.key), source: current.source, baseUrl: client.baseUrl, yes: options.yes, rotate});
			}

			return await runPlain(deps, rotate);
		} finally {
			await client.close();
		}
	},
};

export default command;
