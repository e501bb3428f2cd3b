import {useApp} from 'ink';
import {useCallback, useEffect, useLayoutEffect, useRef, useState} from 'react';
import type {RotationOutcome} from '../../keys/rotate.js';
import type {Phase, Reveal, RotateKeyContext, RotateScreenResult} from './rotate-keys.js';
import {useCountdown} from './use-countdown.js';

export type RotationOptions = {
	skipConfirm: boolean;
	rotate: () => Promise<RotationOutcome>;
	onDone: (result: RotateScreenResult) => void;
	now: () => Date;
	tickMs: number;
};

export type Rotation = Omit<RotateKeyContext, 'write'> & {
	phase: Phase;
	outcome: RotationOutcome | undefined;
	reveal: Reveal;
	interruptNotice: boolean;
	nowMs: number;
	last: RotateScreenResult | undefined;
};

/**
 * The `keys rotate` screen's state: its phase (confirm, rotating, done, closing), the rotation
 * (called at most once, when the phase becomes 'rotating'), the overlap countdown, and the end
 * (onDone, then exit, after the final frame has been rendered).
 */
export function useRotation({skipConfirm, rotate, onDone, now, tickMs}: RotationOptions): Rotation {
	const {exit} = useApp();
	const [phase, setPhase] = useState<Phase>(skipConfirm ? 'rotating' : 'confirm');
	const [outcome, setOutcome] = useState<RotationOutcome | undefined>();
	const [reveal, setReveal] = useState<Reveal>('hidden');
	const [interruptNotice, setInterruptNotice] = useState(false);
	const [nowMs, setNowMs] = useState(() => now().getTime());
	const [last, setLast] = useState<RotateScreenResult | undefined>();
	const result = useRef<RotateScreenResult | undefined>(undefined);
	const started = useRef(false);

	// Ink re-subscribes the input handler after each render; a key pressed in between reaches the
	// previous handler, so the handler reads the latest state through a ref (which it also updates
	// itself), never a stale closure.
	const latest = useRef({phase, outcome, reveal, interruptNotice});
	useLayoutEffect(() => {
		latest.current = {phase, outcome, reveal, interruptNotice};
	});

	const finish = useCallback((value: RotateScreenResult) => {
		if (result.current) {
			return;
		}

		result.current = value;
		latest.current.phase = 'closing';
		setLast(value);
		setPhase('closing');
	}, []);

	// Close after the final frame has been rendered.
	useEffect(() => {
		if (phase === 'closing' && last) {
			onDone(last);
			exit();
		}
	}, [phase, last, onDone, exit]);

	useEffect(() => {
		if (phase !== 'rotating' || started.current) {
			return;
		}

		started.current = true;
		rotate().then(value => {
			setOutcome(value);
			setNowMs(now().getTime());
			// With --yes, or when the key was not saved (the command prints it in full), finish now.
			if (skipConfirm || !value.stored) {
				finish({kind: 'rotated', outcome: value});
			} else if (!result.current) {
				setPhase('done');
			}
		}, (error: unknown) => {
			finish({kind: 'failed', error});
		});
	}, [phase, rotate, now, skipConfirm, finish]);

	// The countdown: one update per tick while the overlap runs.
	const expiresAtMs = outcome?.expiresAt ? Date.parse(outcome.expiresAt) : undefined;
	useCountdown(phase === 'done' ? expiresAtMs : undefined, now, tickMs, setNowMs);

	return {phase, outcome, reveal, interruptNotice, nowMs, last, latest, finish, setPhase, setInterruptNotice, setReveal};
}
