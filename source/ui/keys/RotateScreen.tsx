import {Box, Text, useApp, useInput, useStdout, type Key} from 'ink';
import Spinner from 'ink-spinner';
import {useCallback, useEffect, useLayoutEffect, useRef, useState, type ReactNode} from 'react';
import {formatCountdown} from '../../format/duration.js';
import type {KeySource} from '../../keys/current.js';
import type {RotationOutcome} from '../../keys/rotate.js';
import {formatLocal, formatUtc} from '../../keys/time.js';
import {malformedExpiryMessage, revealLines} from './outcome-text.js';
import {useTerminalSize} from '../use-terminal-size.js';

export type RotateScreenResult =
	| {kind: 'rotated'; outcome: RotationOutcome}
	| {kind: 'cancelled'}
	| {kind: 'interrupted'}
	| {kind: 'failed'; error: unknown};

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

type Phase = 'confirm' | 'rotating' | 'done' | 'closing';

/** The new key's visibility: hidden, or printed once above the screen (then never again). */
type Reveal = 'hidden' | 'spent';

const defaultNow = () => new Date();

/** Below this many terminal rows the screen shows its compact form, so it never fills the window. */
const compactBelowRows = 22;

function Row({label, children}: {label: string; children: ReactNode}) {
	return (
		<Box>
			<Box width={15} flexShrink={0}><Text dimColor>{label}</Text></Box>
			<Box flexDirection='column'>{children}</Box>
		</Box>
	);
}

function Expiry({outcome, nowMs, compact}: {outcome: RotationOutcome; nowMs: number; compact: boolean}) {
	if (!outcome.expiresAt) {
		return (
			<Row label='Previous key'>
				<Text color='red'>{outcome.previousKeyMasked}: expiry unknown (the platform's answer had no valid old_key_expires_at)</Text>
			</Row>
		);
	}

	const expiry = new Date(outcome.expiresAt);
	const left = expiry.getTime() - nowMs;
	return (
		<>
			<Row label='Previous key'>
				<Text>{outcome.previousKeyMasked} keeps working until {compact ? formatUtc(expiry) : ''}</Text>
				{compact ? null : <Text>{formatUtc(expiry)}</Text>}
				{compact || formatLocal(expiry) === undefined ? null : <Text>{formatLocal(expiry)}</Text>}
			</Row>
			<Row label='Overlap left'>
				{left > 0
					? <Text color={left < 5 * 60_000 ? 'yellow' : 'green'}>{formatCountdown(left)}</Text>
					: <Text color='red'>none: the previous key no longer works</Text>}
			</Row>
		</>
	);
}

function EnvWarning({outcome}: {outcome: RotationOutcome}) {
	if (!outcome.envOverride) {
		return null;
	}

	const when = outcome.expiresAt ? formatUtc(new Date(outcome.expiresAt)) : 'the old key expires';
	return (
		<Text color='yellow'>⚠ PLATFORM_API_KEY is set in the environment and overrides the stored key. Update it (here and wherever it is deployed) to the new key before {when}.</Text>
	);
}

/**
 * The `keys rotate` screen: shows the current key (masked), asks to confirm ([y/N]: y rotates;
 * n, Esc or Enter cancels; Ctrl+C interrupts), rotates, then shows the new key masked with the
 * previous key's expiry and a live countdown; r prints the new key once above the screen, alone on
 * its own line. With `skipConfirm` it finishes as soon as the rotation does. The command prints the
 * result as ordinary output when the screen ends.
 */
export function RotateScreen({currentKeyMasked, currentKeySource, baseUrl, skipConfirm = false, rotate, onDone, now = defaultNow, tickMs = 1000}: RotateScreenProps) {
	const {exit} = useApp();
	const {write} = useStdout();
	const compact = (useTerminalSize().rows || 24) < compactBelowRows;
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
	useEffect(() => {
		if (phase !== 'done' || expiresAtMs === undefined) {
			return;
		}

		const timer = setInterval(() => {
			const current = now().getTime();
			setNowMs(current);
			if (current >= expiresAtMs) {
				clearInterval(timer);
			}
		}, tickMs);
		return () => {
			clearInterval(timer);
		};
	}, [phase, expiresAtMs, now, tickMs]);

	const handleKey = (input: string, key: Key) => {
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
	};

	useInput((input, key) => {
		// Keys typed quickly can arrive together ("rq"); handle them one by one.
		const plain = !key.ctrl && !key.meta && !key.return && !key.escape && input.length > 1;
		for (const part of plain ? Array.from(input) : [input]) {
			handleKey(part, key);
		}
	});

	const header = (
		<Box flexDirection='column' marginBottom={compact ? 0 : 1}>
			<Text bold>Rotate the API key</Text>
			<Row label='Current key'>
				<Text>{currentKeyMasked} <Text dimColor>({currentKeySource === 'env' ? 'from PLATFORM_API_KEY' : 'stored'})</Text></Text>
			</Row>
			{compact ? null : <Row label='Platform'><Text>{baseUrl}</Text></Row>}
		</Box>
	);

	if (phase === 'confirm') {
		return (
			<Box flexDirection='column'>
				{header}
				<Text>The platform will issue a new key. The current key keeps working until the expiry it announces (the overlap), so every process has time to move to the new key.</Text>
				{compact ? null : <Text>This tool's own commands and a running `platform-tui serve` switch at their next request.</Text>}
				<Box marginTop={compact ? 0 : 1} flexWrap='wrap'>
					<Text><Text bold>Rotate now?</Text> [y/N] </Text>
					<Text dimColor>(y to rotate; n, Esc or Enter to cancel)</Text>
				</Box>
			</Box>
		);
	}

	if (phase === 'rotating') {
		return (
			<Box flexDirection='column'>
				{header}
				<Text><Text color='cyan'><Spinner type='dots'/></Text> Asking the platform for a new key…</Text>
				{interruptNotice
					? <Text color='yellow'>Waiting for the platform's answer so the new key is not lost; press Ctrl+C again to quit anyway.</Text>
					: null}
			</Box>
		);
	}

	if (phase === 'closing') {
		// A rotation's result is printed by the command as ordinary output once the screen is gone.
		if (!last || last.kind === 'rotated') {
			return null;
		}

		const text = last.kind === 'failed'
			? '✗ The key was not rotated.'
			: last.kind === 'cancelled'
				? 'Rotation cancelled; the key is unchanged.'
				: interruptNotice ? 'Interrupted while waiting for the platform; check `platform-tui keys show`.' : 'Interrupted; the key is unchanged.';
		return <Text color={last.kind === 'failed' ? 'red' : 'yellow'}>{text}</Text>;
	}

	if (!outcome) {
		return null;
	}

	const revealHint = reveal === 'hidden' ? ' (press r to reveal it once)' : ' (printed above once; it can not be shown again)';
	return (
		<Box flexDirection='column'>
			{header}
			<Text color='green' bold>✓ API key rotated</Text>
			<Row label='New key'>
				<Text>{outcome.newKeyMasked}<Text dimColor>{revealHint}</Text></Text>
			</Row>
			{compact ? null : <Row label='Stored in'><Text>{outcome.configPath} <Text dimColor>(mode 0600)</Text></Text></Row>}
			<Expiry outcome={outcome} nowMs={nowMs} compact={compact}/>
			{outcome.expiresAt ? null : <Text color='red'>{malformedExpiryMessage(outcome)}</Text>}
			<EnvWarning outcome={outcome}/>
			<Text dimColor>Enter or q to finish.</Text>
		</Box>
	);
}
