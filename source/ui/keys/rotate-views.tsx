/**
 * What the `keys rotate` screen draws, phase by phase (RotateScreen.tsx holds the state and keys).
 * Every text is wrapped here, word by word at the width it has (ui/wrap.ts), never by Ink: Ink
 * keeps the space it breaks at as the first character of the next row. A path or an address is
 * never broken across rows: it is whole on its row, or shortened in its middle (the lines printed
 * when the screen ends name it whole). The header and the explanation are printed once
 * (<Static>), so a resize redraws only the few lines below them.
 */
import {Box, Text, type TextProps} from 'ink';
import Spinner from 'ink-spinner';
import cliTruncate from 'cli-truncate';
import stringWidth from 'string-width';
import type {ReactNode} from 'react';
import {formatCountdown} from '../../format/duration.js';
import type {KeySource} from '../../keys/current.js';
import type {RotationOutcome} from '../../keys/rotate.js';
import {formatLocal, formatUtc} from '../../keys/time.js';
import {wrapParagraphs} from '../wrap.js';
import {malformedExpiryMessage} from './outcome-text.js';

/** Columns of a row's label. */
const labelWidth = 15;

/** `text` wrapped to `width` columns, with no row beginning or ending with a space. */
export function Wrapped({text, width, ...props}: {text: string; width: number} & Omit<TextProps, 'children' | 'wrap'>) {
	return <Text {...props}>{wrapParagraphs(text, width)}</Text>;
}

/** A path or address whole when it fits `width` with `suffix` after it, else shortened in its middle. */
export function fitPath(path: string, width: number, suffix = ''): string {
	const room = Math.max(8, width - stringWidth(suffix));
	return `${stringWidth(path) <= room ? path : cliTruncate(path, room, {position: 'middle'})}${suffix}`;
}

function Row({label, children}: {label: string; children: ReactNode}) {
	return (
		<Box>
			<Box width={labelWidth} flexShrink={0}><Text dimColor>{label}</Text></Box>
			<Box flexDirection='column'>{children}</Box>
		</Box>
	);
}

/** The header and, before the question, what a rotation does: printed once, above the live lines. */
export function RotateHeader({currentKeyMasked, currentKeySource, baseUrl, explain, compact, width}: {currentKeyMasked: string; currentKeySource: KeySource; baseUrl: string; explain: boolean; compact: boolean; width: number}) {
	const value = width - labelWidth;
	return (
		<Box flexDirection='column' marginBottom={compact ? 0 : 1}>
			<Text bold>Rotate the API key</Text>
			<Row label='Current key'>
				<Wrapped text={`${currentKeyMasked} (${currentKeySource === 'env' ? 'from PLATFORM_API_KEY' : 'stored'})`} width={value}/>
			</Row>
			<Row label='Platform'><Text>{fitPath(baseUrl, value)}</Text></Row>
			{explain
				? (
					<Box flexDirection='column' marginTop={compact ? 0 : 1}>
						<Wrapped text={'The platform will issue a new key. The current key keeps working until the expiry it announces (the overlap), so every process has time to move to the new key.'} width={width}/>
						{compact ? null : <Wrapped text={'This tool\'s own commands and a running `platform-tui serve` switch at their next request.'} width={width}/>}
					</Box>
				)
				: null}
		</Box>
	);
}

/** The question, on as many rows as the width needs. */
export function ConfirmPrompt({width}: {width: number}) {
	const question = 'Rotate now?';
	const [first = '', ...rest] = wrapParagraphs(`${question} [y/N] (y to rotate; n, Esc or Enter to cancel)`, width).split('\n');
	return (
		<Text>
			{first.startsWith(question) ? <><Text bold>{question}</Text>{first.slice(question.length)}</> : first}
			{rest.length > 0 ? `\n${rest.join('\n')}` : ''}
		</Text>
	);
}

export function RotatingView({interruptNotice, width}: {interruptNotice: boolean; width: number}) {
	return (
		<Box flexDirection='column'>
			<Text><Text color='cyan'><Spinner type='dots'/></Text> Asking the platform for a new key…</Text>
			{interruptNotice ? <Wrapped color='yellow' text={'Waiting for the platform\'s answer so the new key is not lost; press Ctrl+C again to quit anyway.'} width={width}/> : null}
		</Box>
	);
}

function Expiry({outcome, nowMs, compact, width}: {outcome: RotationOutcome; nowMs: number; compact: boolean; width: number}) {
	const value = width - labelWidth;
	if (!outcome.expiresAt) {
		return (
			<Row label='Previous key'>
				<Wrapped color='red' text={`${outcome.previousKeyMasked}: expiry unknown (the platform's answer had no valid old_key_expires_at)`} width={value}/>
			</Row>
		);
	}

	const expiry = new Date(outcome.expiresAt);
	const left = expiry.getTime() - nowMs;
	const local = formatLocal(expiry);
	return (
		<>
			<Row label='Previous key'>
				<Wrapped text={`${outcome.previousKeyMasked} keeps working until${compact ? ` ${formatUtc(expiry)}` : ''}`} width={value}/>
				{compact ? null : <Text>{formatUtc(expiry)}</Text>}
				{compact || local === undefined ? null : <Text>{local}</Text>}
			</Row>
			<Row label='Overlap left'>
				{left > 0
					? <Text color={left < 5 * 60_000 ? 'yellow' : 'green'}>{formatCountdown(left)}</Text>
					: <Wrapped color='red' text='none: the previous key no longer works' width={value}/>}
			</Row>
		</>
	);
}

/** The rotated key: masked, where it is stored, the previous key's expiry and a live countdown. */
export function RotatedView({outcome, nowMs, revealed, compact, width}: {outcome: RotationOutcome; nowMs: number; revealed: boolean; compact: boolean; width: number}) {
	const value = width - labelWidth;
	const revealHint = revealed ? '(printed above once; it can not be shown again)' : '(press r to reveal it once)';
	const when = outcome.expiresAt ? formatUtc(new Date(outcome.expiresAt)) : 'the old key expires';
	return (
		<Box flexDirection='column'>
			<Text color='green' bold>✓ API key rotated</Text>
			<Row label='New key'>
				{stringWidth(`${outcome.newKeyMasked} ${revealHint}`) <= value
					? <Text>{outcome.newKeyMasked} <Text dimColor>{revealHint}</Text></Text>
					: <Wrapped text={`${outcome.newKeyMasked} ${revealHint}`} width={value}/>}
			</Row>
			{compact ? null : <Row label='Stored in'><Text>{fitPath(outcome.configPath, value, ' (mode 0600)')}</Text></Row>}
			<Expiry outcome={outcome} nowMs={nowMs} compact={compact} width={width}/>
			{outcome.expiresAt ? null : <Wrapped color='red' text={malformedExpiryMessage(outcome)} width={width}/>}
			{outcome.envOverride
				? <Wrapped color='yellow' text={`⚠ PLATFORM_API_KEY is set in the environment and overrides the stored key. Update it (here and wherever it is deployed) to the new key before ${when}.`} width={width}/>
				: null}
			<Text dimColor>Enter or q to finish.</Text>
		</Box>
	);
}
