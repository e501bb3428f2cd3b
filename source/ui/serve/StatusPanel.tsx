import {Box, Text} from 'ink';
import Spinner from 'ink-spinner';
import {formatCountdown, formatMs} from '../../format/duration.js';
import {oneLine, plural} from '../../format/text.js';
import type {ReactElement} from 'react';
import type {BackendStats} from '../../receiver/backend.js';
import type {ReceiverCounters} from '../../receiver/events.js';
import {countersText} from './format.js';

/** The API key in use and the rotation state (re-read every second, so a rotation shows at once). */
export type KeyStatus = {
	keyMasked: string;
	/** `env`: the key came from PLATFORM_API_KEY, so a rotation stored in the config file is not picked up. */
	source?: 'env' | 'stored';
	previousKeyMasked?: string;
	/** ISO time the previous key stops working. */
	previousKeyExpiresAt?: string;
};

export type StatusPanelProps = {
	url: string;
	secretCount: number;
	store?: string;
	keyStatus: KeyStatus;
	now: number;
	counters: ReceiverCounters;
	/** The cluster's queue figures (Redis). */
	queue?: BackendStats['queue'];
	/** serve's status line (ready, degraded …, draining). */
	health?: {text: string; ok: boolean};
	drainTimeoutMs: number;
	draining?: {timeoutMs: number};
	stopped?: {cutOff: number};
	/** Quitting without waiting: no spinner may stay on the screen. */
	quitting: boolean;
	/** Whether rows can be selected (the footer then names the keys). */
	selectable: boolean;
	width: number;
};

/** Lines the panel takes (its border included), for the layout. */
export function statusPanelLines(props: Pick<StatusPanelProps, 'store' | 'queue' | 'health'>): number {
	return 2 + 3 + (props.store ? 1 : 0) + (props.queue ? 1 : 0) + (props.health ? 1 : 0);
}

/** The status box under the live rows: address, secrets, key, counters, cluster queue, keys. */
export function StatusPanel(props: StatusPanelProps) {
	const {keyStatus: key, counters, draining, stopped} = props;
	const inner = Math.max(20, props.width - 4);
	const expiresAt = key.previousKeyExpiresAt ? Date.parse(key.previousKeyExpiresAt) : Number.NaN;
	const previous = Number.isFinite(expiresAt) && expiresAt > props.now ? ` · previous key ${key.previousKeyMasked ?? ''} valid for ${formatCountdown(expiresAt - props.now)}` : '';
	let footer: ReactElement;
	if (stopped) {
		footer = <Text dimColor>{`Stopped.${stopped.cutOff > 0 ? ` ${plural(stopped.cutOff, 'job')} cut off at the drain deadline (logs FAILED, apology written).` : ''}`}</Text>;
	} else if (draining) {
		const text = ` Stopping: no new events; waiting up to ${formatMs(draining.timeoutMs)} for ${plural(counters.processing, 'job')}… (Ctrl+C again quits at once)`;
		footer = props.quitting ? <Text color="yellow">{text}</Text> : <Text color="yellow"><Spinner type="dots" />{text}</Text>;
	} else {
		const keys = props.selectable ? '↑/↓ select · Enter details · r replay failed · ' : '';
		footer = <Text dimColor>{oneLine(`${keys}q or Ctrl+C to stop (running jobs get up to ${formatMs(props.drainTimeoutMs)} to finish)`, inner)}</Text>;
	}

	return (
		<Box flexDirection="column" borderStyle="round" borderColor={stopped ? 'gray' : (draining ? 'yellow' : 'cyan')} paddingX={1}>
			<Text wrap="truncate-end">
				<Text bold>{props.url}</Text>
				{' · '}
				<Text color="green">{plural(props.secretCount, 'endpoint secret')}</Text>
				{' · key '}
				<Text bold>{key.keyMasked}</Text>
				{key.source === 'env' ? ' (from PLATFORM_API_KEY)' : null}
				{previous ? <Text color="yellow">{previous}</Text> : null}
			</Text>
			{props.store ? <Text dimColor wrap="truncate-middle">{`events in ${props.store}`}</Text> : null}
			{props.health ? <Text color={props.health.ok ? 'green' : 'red'} wrap="truncate-end">{props.health.text}</Text> : null}
			<Text wrap="truncate-end">{countersText(counters)}</Text>
			{props.queue
				? <Text color="cyan" wrap="truncate-end">{`cluster queue: waiting ${props.queue.waiting} · active ${props.queue.active} · completed ${props.queue.completed} · failed ${props.queue.failed}`}</Text>
				: null}
			{footer}
		</Box>
	);
}
