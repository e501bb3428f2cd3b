import {Box, Text, useApp, useInput, type Key} from 'ink';
import Spinner from 'ink-spinner';
import {useEffect, useRef, useState, type ReactNode} from 'react';
import type {KeySource} from '../../keys/current.js';
import {malformedExpiryMessage, storeFailedMessage, type RotationOutcome} from '../../keys/rotate.js';
import {formatDuration, formatLocal, formatUtc} from '../../keys/time.js';

export type RotateScreenResult =
	| {kind: 'rotated'; outcome: RotationOutcome}
	| {kind: 'cancelled'}
	| {kind: 'interrupted'}
	| {kind: 'failed'; error: unknown};

export type RotateScreenProps = {
	currentKeyMasked: string;
	currentKeySource: KeySource;
	baseUrl: string;
	/** Skip the confirmation (--yes). */
	skipConfirm?: boolean;
	/** Performs the rotation (the core's rotateApiKey); called at most once. */
	rotate: () => Promise<RotationOutcome>;
	onDone: (result: RotateScreenResult) => void;
	now?: () => Date;
	/** How often the overlap countdown updates, ms. Default 1000. */
	tickMs?: number;
};

type Phase = 'confirm' | 'rotating' | 'done' | 'closing';

/** The new key's visibility: hidden, shown in full once, then masked for good. */
type Reveal = 'hidden' | 'shown' | 'spent';

function Row({label, children}: {label: string; children: ReactNode}) {
	return (
		<Box>
			<Box width={15} flexShrink={0}><Text dimColor>{label}</Text></Box>
			<Box flexDirection='column'>{children}</Box>
		</Box>
	);
}

function Expiry({outcome, nowMs}: {outcome: RotationOutcome; nowMs: number}) {
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
				<Text>{outcome.previousKeyMasked} keeps working until</Text>
				<Text>{formatUtc(expiry)}</Text>
				<Text>{formatLocal(expiry)}</Text>
			</Row>
			<Row label='Overlap left'>
				{left > 0
					? <Text color={left < 5 * 60_000 ? 'yellow' : 'green'}>{formatDuration(left)}</Text>
					: <Text color='red'>none: the previous key no longer works</Text>}
			</Row>
		</>
	);
}

function EnvWarning({outcome, canReveal = false}: {outcome: RotationOutcome; canReveal?: boolean}) {
	if (!outcome.envOverride) {
		return null;
	}

	const when = outcome.expiresAt ? formatUtc(new Date(outcome.expiresAt)) : 'the old key expires';
	return (
		<Box marginTop={1} borderStyle='round' borderColor='yellow' paddingX={1} flexDirection='column'>
			<Text color='yellow' bold>⚠ PLATFORM_API_KEY is set in the environment and overrides the stored key.</Text>
			<Text>Update it (here and wherever it is deployed) to the new key before {when}, or every call made with it will fail.{canReveal ? ' Press r to reveal the new key once.' : ''}</Text>
		</Box>
	);
}

/**
 * The `keys rotate` screen: shows the current key (masked) and explains the overlap, asks to
 * confirm (y/Enter; n/Esc cancels; Ctrl+C interrupts), rotates, then shows the new key masked
 * (r reveals it once), the previous key's expiry in UTC and local time and a live countdown.
 */
export function RotateScreen(props: RotateScreenProps) {
	const {exit} = useApp();
	const now = props.now ?? (() => new Date());
	const [phase, setPhase] = useState<Phase>(props.skipConfirm ? 'rotating' : 'confirm');
	const [outcome, setOutcome] = useState<RotationOutcome | undefined>();
	const [reveal, setReveal] = useState<Reveal>('hidden');
	const [interruptNotice, setInterruptNotice] = useState(false);
	const [nowMs, setNowMs] = useState(() => now().getTime());
	const result = useRef<RotateScreenResult | undefined>(undefined);
	const started = useRef(false);

	// Ink re-subscribes the input handler after each render; a key pressed in between reaches the
	// previous handler, so the handler reads the latest state through a ref, never a stale closure.
	const latest = useRef({phase, outcome, reveal, interruptNotice});
	latest.current = {phase, outcome, reveal, interruptNotice};
	const setRevealNow = (value: Reveal) => {
		latest.current.reveal = value;
		setReveal(value);
	};

	const finish = (value: RotateScreenResult) => {
		if (result.current) {
			return;
		}

		result.current = value;
		latest.current.phase = 'closing';
		setPhase('closing');
	};

	// Close after the final frame (key masked again) has been rendered.
	useEffect(() => {
		if (phase === 'closing' && result.current) {
			props.onDone(result.current);
			exit();
		}
	}, [phase]);

	useEffect(() => {
		if (phase !== 'rotating' || started.current) {
			return;
		}

		started.current = true;
		props.rotate().then(value => {
			setOutcome(value);
			setNowMs(now().getTime());
			if (!result.current) {
				setPhase('done');
			}
		}, (error: unknown) => {
			finish({kind: 'failed', error});
		});
	}, [phase]);

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
		}, props.tickMs ?? 1000);
		return () => {
			clearInterval(timer);
		};
	}, [phase, expiresAtMs]);

	const handleKey = (input: string, key: Key) => {
		const state = latest.current;
		const ctrlC = key.ctrl && input === 'c';
		if (state.phase === 'confirm') {
			if (ctrlC) {
				finish({kind: 'interrupted'});
			} else if (input === 'y' || input === 'Y' || key.return) {
				state.phase = 'rotating';
				setPhase('rotating');
			} else if (input === 'n' || input === 'N' || key.escape) {
				finish({kind: 'cancelled'});
			}

			return;
		}

		if (state.phase === 'rotating') {
			if (ctrlC) {
				if (state.interruptNotice) {
					finish({kind: 'interrupted'});
				} else {
					state.interruptNotice = true;
					setInterruptNotice(true);
				}
			}

			return;
		}

		if (state.phase === 'done' && state.outcome) {
			if (input === 'r' || input === 'R') {
				if (state.outcome.stored) {
					setRevealNow(state.reveal === 'hidden' ? 'shown' : 'spent');
				}

				return;
			}

			if (ctrlC || key.return || key.escape || input === 'q' || input === 'Q') {
				if (state.reveal === 'shown') {
					setRevealNow('spent');
				}

				finish({kind: 'rotated', outcome: state.outcome});
			}
		}
	};

	useInput((input, key) => {
		// Keys typed quickly can arrive together ("rq"); handle them one by one.
		const plain = !key.ctrl && !key.meta && !key.return && !key.escape && input.length > 1;
		for (const part of plain ? [...input] : [input]) {
			handleKey(part, key);
		}
	});

	const header = (
		<Box flexDirection='column' marginBottom={1}>
			<Text bold>Rotate the API key</Text>
			<Row label='Current key'>
				<Text>{props.currentKeyMasked} <Text dimColor>({props.currentKeySource === 'env' ? 'from PLATFORM_API_KEY' : 'stored'})</Text></Text>
			</Row>
			<Row label='Platform'>
				<Text>{props.baseUrl}</Text>
			</Row>
		</Box>
	);

	if (phase === 'confirm') {
		return (
			<Box flexDirection='column'>
				{header}
				<Text>The platform will issue a new key. The current key keeps working until the expiry</Text>
				<Text>it announces (the overlap), so every process has time to move to the new key.</Text>
				<Text>This tool's own commands and a running `platform-tui serve` switch at their next request.</Text>
				<Box marginTop={1}>
					<Text bold>Rotate now? </Text><Text>[Y/n] </Text><Text dimColor>(y or Enter to rotate, n or Esc to cancel)</Text>
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

	const last = result.current;
	if (phase === 'closing' && last && last.kind !== 'rotated') {
		const text = last.kind === 'failed'
			? '✗ The key was not rotated.'
			: last.kind === 'cancelled'
				? 'Rotation cancelled; the key is unchanged.'
				: interruptNotice ? 'Interrupted while waiting for the platform; check `platform-tui keys show`.' : 'Interrupted; the key is unchanged.';
		return (
			<Box flexDirection='column'>
				{header}
				<Text color={last.kind === 'failed' ? 'red' : 'yellow'}>{text}</Text>
			</Box>
		);
	}

	if (!outcome) {
		return null;
	}

	if (!outcome.stored) {
		return (
			<Box flexDirection='column'>
				{header}
				<Box borderStyle='double' borderColor='red' paddingX={1} flexDirection='column'>
					<Text color='red' bold>✗ THE NEW KEY WAS NOT SAVED. COPY IT NOW: IT IS SHOWN ONLY THIS ONCE.</Text>
					<Text>{storeFailedMessage(outcome)}</Text>
					<Box marginTop={1}>
						<Text bold>New key  </Text><Text color='red' bold>{outcome.newKey}</Text>
					</Box>
				</Box>
				<Expiry outcome={outcome} nowMs={nowMs}/>
				<EnvWarning outcome={outcome}/>
				{phase === 'done' ? <Text dimColor>Enter or q to finish.</Text> : null}
			</Box>
		);
	}

	const revealHint = reveal === 'hidden'
		? ' (press r to reveal it once)'
		: reveal === 'shown' ? ' (shown once; press r to hide it)' : ' (hidden; it can not be shown again)';
	return (
		<Box flexDirection='column'>
			{header}
			<Text color='green' bold>✓ API key rotated</Text>
			<Row label='New key'>
				<Text>
					{reveal === 'shown' && phase === 'done' ? <Text bold>{outcome.newKey}</Text> : outcome.newKeyMasked}
					<Text dimColor>{phase === 'done' ? revealHint : ''}</Text>
				</Text>
			</Row>
			<Row label='Stored in'>
				<Text>{outcome.configPath} <Text dimColor>(mode 0600)</Text></Text>
			</Row>
			<Expiry outcome={outcome} nowMs={nowMs}/>
			{outcome.expiresAt ? null : <Text color='red'>{malformedExpiryMessage(outcome)}</Text>}
			<EnvWarning outcome={outcome} canReveal={reveal === 'hidden' && phase === 'done'}/>
			{phase === 'done' ? <Box marginTop={1}><Text dimColor>Enter or q to finish.</Text></Box> : null}
		</Box>
	);
}
