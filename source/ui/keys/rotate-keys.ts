/**
 * What a key does on the `keys rotate` screen, by phase: y rotates and n, Esc or Enter cancels
 * the confirmation; a second Ctrl+C interrupts a rotation in flight; r prints the new key once,
 * and q, Enter, Esc or Ctrl+C close the screen after it. The handler reads and updates the
 * screen's state through `latest` (Ink may hand it a key before the next render).
 */
import type {RefObject} from 'react';
import type {RotationOutcome} from '../../keys/rotate.js';
import {revealLines} from './outcome-text.js';

/** How the screen ended: what the command prints after it. */
export type RotateScreenResult =
	| {kind: 'rotated'; outcome: RotationOutcome}
	| {kind: 'cancelled'}
	| {kind: 'interrupted'}
	| {kind: 'failed'; error: unknown};

export type Phase = 'confirm' | 'rotating' | 'done' | 'closing';

/** The new key's visibility: hidden, or printed once above the screen (then never again). */
export type Reveal = 'hidden' | 'spent';

export type RotateKeyContext = {
	latest: RefObject<{phase: Phase; outcome: RotationOutcome | undefined; reveal: Reveal; interruptNotice: boolean}>;
	finish: (value: RotateScreenResult) => void;
	setPhase: (phase: Phase) => void;
	setInterruptNotice: (shown: boolean) => void;
	setReveal: (reveal: Reveal) => void;
	/** Writes above the live area, as ordinary output. */
	write: (text: string) => void;
};

export type Pressed = {ctrl: boolean; escape: boolean; return: boolean};

export function rotateKey({latest, finish, setPhase, setInterruptNotice, setReveal, write}: RotateKeyContext, input: string, key: Pressed): void {
	const state = latest.current;
	const ctrlC = key.ctrl && input === 'c';
	if (state.phase === 'confirm') {
		if (ctrlC) {
			finish({kind: 'interrupted'});
		} else if (input === 'y' || input === 'Y') {
			state.phase = 'rotating';
			setPhase('rotating');
		} else if (input === 'n' || input === 'N' || key.escape || key.return) {
			finish({kind: 'cancelled'});
		}

		return;
	}

	if (state.phase === 'rotating') {
		if (ctrlC && state.interruptNotice) {
			finish({kind: 'interrupted'});
		} else if (ctrlC) {
			state.interruptNotice = true;
			setInterruptNotice(true);
		}

		return;
	}

	if (state.phase === 'done' && state.outcome) {
		if ((input === 'r' || input === 'R') && state.reveal === 'hidden') {
			// Printed above the live area as ordinary output, so the terminal (not Ink) wraps it.
			state.reveal = 'spent';
			setReveal('spent');
			write(`${revealLines(state.outcome).join('\n')}\n`);
		} else if (ctrlC || key.return || key.escape || input === 'q' || input === 'Q') {
			finish({kind: 'rotated', outcome: state.outcome});
		}
	}
}
