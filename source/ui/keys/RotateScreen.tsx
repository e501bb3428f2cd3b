import {Box, Static, useInput, useStdout} from 'ink';
import {useState} from 'react';
import type {KeySource} from '../../keys/current.js';
import type {RotationOutcome} from '../../keys/rotate.js';
import {rotateKey, type Phase, type RotateScreenResult} from './rotate-keys.js';
import {ConfirmPrompt, RotatedView, RotateHeader, RotatingView, Wrapped} from './rotate-views.js';
import {useRotation} from './use-rotation.js';
import {useTerminalSize} from '../use-terminal-size.js';

export type {RotateScreenResult} from './rotate-keys.js';

export type RotateScreenProps = {
	currentKeyMasked: string;
	currentKeySource: KeySource;
	baseUrl: string;
	/** Skip the confirmation (--yes): rotate, then finish by itself without waiting for a key. */
	skipConfirm?: boolean;
	/** Performs the rotation (the core's rotateApiKey); called at most once. */
	rotate: () => Promise<RotationOutcome>;
	onDone: (result: RotateScreenResult) => void;
	now?: () => Date;
	/** How often the overlap countdown updates, ms. Default 1000. */
	tickMs?: number;
};

const defaultNow = () => new Date();

/** Below this many terminal rows the screen shows its compact form, so it never fills the window. */
const compactBelowRows = 22;

/**
 * The `keys rotate` screen: shows the current key (masked), asks to confirm ([y/N]: y rotates;
 * n, Esc or Enter cancels; Ctrl+C interrupts), rotates, then shows the new key masked with the
 * previous key's expiry and a live countdown; r prints the new key once above the screen, alone on
 * its own line. With `skipConfirm` it finishes as soon as the rotation does. The command prints the
 * result as ordinary output when the screen ends, and the one sentence of a cancel.
 * The header is printed once (<Static>): a resize redraws only the lines under it, which are
 * always fewer than the window's.
 */
export function RotateScreen({currentKeyMasked, currentKeySource, baseUrl, skipConfirm = false, rotate, onDone, now = defaultNow, tickMs = 1000}: RotateScreenProps) {
	const {write} = useStdout();
	const size = useTerminalSize();
	const compact = (size.rows || 24) < compactBelowRows;
	const width = Math.max(20, size.columns || 80);
	// The header as of the first frame, printed once.
	const [header] = useState(() => [{key: 'header', explain: !skipConfirm, compact, width}]);
	const rotation = useRotation({skipConfirm, rotate, onDone, now, tickMs});
	const {phase, last, interruptNotice, outcome, nowMs, reveal} = rotation;

	useInput((input, key) => {
		// Keys typed quickly can arrive together ("rq"); handle them one by one.
		const plain = !key.ctrl && !key.meta && !key.return && !key.escape && input.length > 1;
		for (const part of plain ? Array.from(input) : [input]) {
			rotateKey({...rotation, write}, part, key);
		}
	});

	const live = liveView({phase, last, interruptNotice, outcome, nowMs, revealed: reveal === 'spent', compact, width});
	return (
		<Box flexDirection='column'>
			<Static items={header}>
				{item => <RotateHeader key={item.key} currentKeyMasked={currentKeyMasked} currentKeySource={currentKeySource} baseUrl={baseUrl} explain={item.explain} compact={item.compact} width={item.width}/>}
			</Static>
			{live}
		</Box>
	);
}

type LiveInput = {phase: Phase; last: RotateScreenResult | undefined; interruptNotice: boolean; outcome: RotationOutcome | undefined; nowMs: number; revealed: boolean; compact: boolean; width: number};

/** The lines under the header: the question, the spinner, the rotated key, or why it ended. */
function liveView({phase, last, interruptNotice, outcome, nowMs, revealed, compact, width}: LiveInput) {
	if (phase === 'confirm') {
		return <ConfirmPrompt width={width}/>;
	}

	if (phase === 'rotating') {
		return <RotatingView interruptNotice={interruptNotice} width={width}/>;
	}

	if (phase === 'closing') {
		// A rotation's result, and a cancel's one sentence, are printed by the command as ordinary
		// output once the screen is gone.
		if (!last || last.kind === 'rotated' || last.kind === 'cancelled') {
			return null;
		}

		const text = last.kind === 'failed'
			? '✗ The key was not rotated.'
			: interruptNotice ? 'Interrupted while waiting for the platform; check `platform-tui keys show`.' : 'Interrupted; the key is unchanged.';
		return <Wrapped color={last.kind === 'failed' ? 'red' : 'yellow'} text={text} width={width}/>;
	}

	return outcome ? <RotatedView outcome={outcome} nowMs={nowMs} revealed={revealed} compact={compact} width={width}/> : null;
}
