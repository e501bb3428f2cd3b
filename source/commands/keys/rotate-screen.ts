/** `keys rotate` on a terminal: the Ink screen (ui/keys/RotateScreen.tsx), then the result as ordinary output. */
import {CancelledError, UserError} from '../../errors.js';
import type {RotationOutcome} from '../../keys/rotate.js';
import type {RotateScreenResult} from '../../ui/keys/rotate-keys.js';
import {outcomeCode, screenResultLines} from '../../ui/keys/outcome-text.js';
import {loadScreen} from '../../ui/react-build.js';
import type {Deps} from '../../cli/deps.js';
import {writeWarnings} from './rotate-plain.js';

export async function runScreen(deps: Deps, options: {currentKeyMasked: string; source: 'env' | 'stored'; baseUrl: string; yes: boolean; rotate: () => Promise<RotationOutcome>}): Promise<number> {
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
