import {mask} from '../../config/settings.js';
import {CancelledError, UserError} from '../../errors.js';
import {currentApiKey} from '../../keys/current.js';
import {
	malformedExpiryMessage,
	rotateApiKey,
	storeFailedMessage,
	type RotationEvent,
	type RotationOutcome,
} from '../../keys/rotate.js';
import {formatDuration, formatLocal, formatUtc} from '../../keys/time.js';
import {RotateScreen, type RotateScreenResult} from '../../ui/keys/RotateScreen.js';
import {renderApp, waitForApp} from '../../ui/render.js';
import {createClient, settingsFor, writeJson} from '../shared.js';
import type {CommandContext, CommandModule} from '../legacy-types.js';

/** The rotate call is not retried blindly and never aborted once sent; this bounds it instead. */
const rotateTimeoutMs = 30_000;

function expiryLine(outcome: RotationOutcome, now: Date): string {
	if (!outcome.expiresAt) {
		return `The previous key ${outcome.previousKeyMasked} has no announced expiry (the answer was malformed).`;
	}

	const expiry = new Date(outcome.expiresAt);
	const left = expiry.getTime() - now.getTime();
	const overlap = left > 0 ? `${formatDuration(left)} from now` : 'already past: it no longer works';
	return `The previous key ${outcome.previousKeyMasked} keeps working until ${formatUtc(expiry)} (${formatLocal(expiry)}), ${overlap}.`;
}

function envWarning(outcome: RotationOutcome): string {
	const when = outcome.expiresAt ? formatUtc(new Date(outcome.expiresAt)) : 'the previous key expires';
	return `Warning: PLATFORM_API_KEY is set in the environment and overrides the stored key; update it (and every deployment that sets it) to the new key ${outcome.newKeyMasked} before ${when}. The new key is in ${outcome.configPath} (field apiKey).\n`;
}

/** One plain line per rotation event. */
function eventLine(event: RotationEvent): string {
	switch (event.type) {
		case 'rotating': {
			return `Rotating the API key ${event.currentKeyMasked} (${event.source === 'env' ? 'from PLATFORM_API_KEY' : 'stored'}) at ${event.baseUrl}`;
		}

		case 'rotated': {
			return `Rotated: the new key is ${event.newKeyMasked}`;
		}

		case 'stored': {
			return `Stored the new key ${event.newKeyMasked} in ${event.path} (mode 0600)`;
		}

		case 'store-failed': {
			return `Could not store the new key in ${event.path}: ${event.error}`;
		}
	}
}

/** The exit code of a rotation that produced a key: 0 only when it is stored and the expiry is known. */
function outcomeCode(outcome: RotationOutcome): number {
	return outcome.stored && outcome.expiresAt ? 0 : 1;
}

/** Non-interactive: plain lines (or one JSON object) and no full key, except when storing failed. */
async function runPlain(context: CommandContext, rotate: (onEvent: (event: RotationEvent) => void) => Promise<RotationOutcome>): Promise<number> {
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

	const now = new Date();
	if (context.json) {
		writeJson(context, {
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

	if (!outcome.stored) {
		context.stderr.write([
			'',
			'!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!',
			'!! THE NEW KEY WAS NOT SAVED. COPY IT NOW: IT IS SHOWN ONLY THIS ONCE. !!',
			'!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!',
			`New key: ${outcome.newKey}`,
			`${storeFailedMessage(outcome)}.`,
			'',
		].join('\n'));
	}

	if (!outcome.expiresAt) {
		context.stderr.write(`Error: ${malformedExpiryMessage(outcome)}.\n`);
	}

	if (outcome.envOverride) {
		context.stderr.write(envWarning(outcome));
	}

	return outcomeCode(outcome);
}

/** Interactive: the Ink screen. */
async function runScreen(
	context: CommandContext,
	options: {currentKeyMasked: string; source: 'env' | 'stored'; baseUrl: string; skipConfirm: boolean; rotate: () => Promise<RotationOutcome>},
): Promise<number> {
	let result: RotateScreenResult | undefined;
	let pending: Promise<RotationOutcome> | undefined;
	const rotateOnce = () => {
		pending ??= options.rotate();
		return pending;
	};

	const instance = renderApp(context, (
		<RotateScreen
			currentKeyMasked={options.currentKeyMasked}
			currentKeySource={options.source}
			baseUrl={options.baseUrl}
			skipConfirm={options.skipConfirm}
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
		throw new UserError('Rotation cancelled; the key is unchanged');
	}

	if (result.kind === 'failed') {
		throw result.error;
	}

	// The screen showed everything, the env-var warning included.
	return outcomeCode(result.outcome);
}

const command: CommandModule = {
	usage: 'platform-tui keys rotate [--yes]',
	description: 'Rotate the API key: the platform issues a new key and the old one keeps working until the announced expiry',
	flags: {
		yes: {type: 'boolean', default: false, shortFlag: 'y', description: 'Rotate without asking (required when not on a terminal)'},
	},
	examples: ['platform-tui keys rotate', 'platform-tui keys rotate --yes', 'platform-tui keys rotate --yes --json'],
	async run(context) {
		if (context.argv.length > 0) {
			throw new UserError('keys rotate takes no arguments; usage: platform-tui keys rotate [--yes]');
		}

		const yes = context.flags.yes === true;
		const screen = context.interactive && Boolean(context.stdin.isTTY);
		if (!screen && !yes) {
			throw new UserError('keys rotate asks for confirmation, and this is not an interactive terminal; pass --yes to rotate without asking: platform-tui keys rotate --yes');
		}

		const {settings, store} = settingsFor(context, ['baseUrl', 'apiKey', 'appId'], 'keys rotate');
		const current = currentApiKey({env: context.env, store}) ?? {key: settings.apiKey, source: 'stored' as const};
		const client = createClient(context, settings, store);
		const rotate = async (onEvent?: (event: RotationEvent) => void) => rotateApiKey({
			client,
			store,
			env: context.env,
			call: {timeoutMs: rotateTimeoutMs},
			...(onEvent ? {onEvent} : {}),
		});
		try {
			if (screen) {
				return await runScreen(context, {
					currentKeyMasked: mask(current.key),
					source: current.source,
					baseUrl: client.baseUrl,
					skipConfirm: yes,
					rotate,
				});
			}

			return await runPlain(context, rotate);
		} finally {
			await client.close();
		}
	},
};

export default command;
