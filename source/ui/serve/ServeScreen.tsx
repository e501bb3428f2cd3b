import {Box, Static, Text, useInput, useStdin, useStdout} from 'ink';
import Spinner from 'ink-spinner';
import {useEffect, useRef, useState} from 'react';
import type {ReceiverCounters, ReceiverEvent, ReceiverEventListener} from '../../receiver/events.js';
import {countersText, cut, formatCountdown, formatMs} from './format.js';
import {applyEvent, initialServeState, type LogRow, type ServeState} from './state.js';

/** What the screen needs from the receiver. */
export type ServeSource = {
	on(type: 'event', listener: ReceiverEventListener): () => void;
	counters(): ReceiverCounters;
};

/** The API key in use and the rotation state (re-read every second, so a rotation shows at once). */
export type KeyStatus = {
	keyMasked: string;
	previousKeyMasked?: string;
	/** ISO time the previous key stops working. */
	previousKeyExpiresAt?: string;
};

export type ServeScreenProps = {
	source: ServeSource;
	/** Where the receiver listens, e.g. http://127.0.0.1:8080. */
	url: string;
	secretCount: number;
	/** Where events are kept, e.g. `journal /home/me/.local/share/platform-tui` or `redis redis://…`. */
	store?: string;
	drainTimeoutMs: number;
	keyStatus: () => KeyStatus;
	/** Called on q or Ctrl+C: first to stop gracefully (drain), then with force=true to quit at once. */
	onQuit: (force: boolean) => void;
	/** Shortest time between two re-renders of the live part, ms. Default 100 (at most 10 a second). */
	flushIntervalMs?: number;
	now?: () => number;
	/** Colour the finished rows; default: when stdout is a TTY and NO_COLOR is not set. */
	color?: boolean;
};

const toneColor: Record<LogRow['tone'], string | undefined> = {
	ok: 'green',
	warn: 'yellow',
	error: 'red',
	info: 'cyan',
	live: undefined,
};

function statusColor(status: number): string {
	if (status >= 200 && status < 300) {
		return 'green';
	}

	return status >= 500 ? 'yellow' : 'red';
}

function Row({row, live = false}: {row: LogRow; live?: boolean}) {
	const middle = `  ${row.label}${row.chatId ? `  ${row.chatId}` : ''}${row.text === undefined ? '' : `  ${JSON.stringify(cut(row.text, 40))}`}  `;
	return (
		<Text wrap="wrap">
			<Text dimColor>{row.time}</Text>
			{'  '}
			<Text color={statusColor(row.status)}>{row.status}</Text>
			{middle}
			{live ? <Text color="cyan"><Spinner type="dots" />{' '}</Text> : null}
			<Text color={toneColor[row.tone]}>{row.detail}</Text>
		</Text>
	);
}

const sgr: Record<string, [number, number]> = {
	dim: [2, 22],
	red: [31, 39],
	green: [32, 39],
	yellow: [33, 39],
	cyan: [36, 39],
};

function paint(text: string, style: string | undefined, color: boolean): string {
	const codes = style ? sgr[style] : undefined;
	return color && codes ? `\u001B[${codes[0]}m${text}\u001B[${codes[1]}m` : text;
}

/**
 * A finished row as one line of text. Finished rows are written in batches, each batch one <Text>
 * inside <Static>: a node per row costs Ink several milliseconds of layout, a line costs little.
 */
export function rowLine(row: LogRow, color: boolean): string {
	const middle = `  ${row.label}${row.chatId ? `  ${row.chatId}` : ''}${row.text === undefined ? '' : `  ${JSON.stringify(cut(row.text, 40))}`}  `;
	return `${paint(row.time, 'dim', color)}  ${paint(String(row.status), statusColor(row.status), color)}${middle}${paint(row.detail, toneColor[row.tone], color)}`;
}

type StaticItem = {kind: 'banner'; key: string} | {kind: 'rows'; key: string; text: string};

/**
 * Finished rows written per render; a flood beyond it waits for the next render. Ink re-tokenizes
 * every character it writes, so this bounds the time a render takes
 * the event loop away from the receiver (50 rows per 100 ms render: at most 500 rows a second).
 */
const maxRowsPerFlush = 50;
/**
 * Finished rows waiting to be written (about a second behind at most); past it the oldest waiting
 * rows are summarized in one line instead of shown. The counters stay exact; --json logs all.
 */
const maxPendingRows = 500;

/**
 * The live event log of `platform-tui serve`: a row per request or event (finished rows in
 * <Static>), the jobs still running with their stage, and a status panel with the listen address,
 * secrets, API key (and the previous key's countdown while it is still valid) and the counters.
 * Receiver events are folded into a ref and rendered at most every `flushIntervalMs`.
 */
export function ServeScreen({source, url, secretCount, drainTimeoutMs, keyStatus, onQuit, flushIntervalMs = 100, now = Date.now, color: colorProp}: ServeScreenProps) {
	const {stdout} = useStdout();
	const color = colorProp ?? (Boolean(stdout.isTTY) && !process.env.NO_COLOR && process.env.FORCE_COLOR !== '0');
	const state = useRef<ServeState>(initialServeState());
	/**
	 * The rows of the latest render for <Static>. Static writes each item once; a new batch gets a
	 * new Static (keyed by the batch number), so rows already written are not kept in memory.
	 */
	const batch = useRef<{id: number; items: StaticItem[]}>({id: 0, items: [{kind: 'banner', key: 'banner'}]});
	const [, setVersion] = useState(0);
	const [clockNow, setClockNow] = useState(now());
	const [key, setKey] = useState<KeyStatus>(() => keyStatus());
	const {isRawModeSupported} = useStdin();
	const quitting = useRef(false);

	useInput((input, pressed) => {
		if (input === 'q' || (pressed.ctrl && input === 'c')) {
			onQuit(quitting.current);
			quitting.current = true;
		}
	}, {isActive: isRawModeSupported === true});

	useEffect(() => {
		let timer: NodeJS.Timeout | undefined;
		const flush = (all = false) => {
			timer = undefined;
			const {done} = state.current;
			const lines: string[] = [];
			if (done.length > maxPendingRows) {
				const skipped = done.length - maxPendingRows;
				done.splice(0, skipped);
				lines.push(paint(`… ${skipped} rows not shown to keep up with the load (the counters include them; --json logs every event)`, 'yellow', color));
			}

			for (const row of done.splice(0, all ? done.length : maxRowsPerFlush)) {
				lines.push(rowLine(row, color));
			}

			if (lines.length > 0) {
				const id = batch.current.id + 1;
				batch.current = {id, items: [{kind: 'rows', key: `rows-${id}`, text: lines.join('\n')}]};
			}

			setVersion(version => version + 1);
			if (done.length > 0) {
				timer = setTimeout(flush, flushIntervalMs);
			}
		};

		const flushSoon = () => {
			timer ??= setTimeout(flush, flushIntervalMs);
		};

		const unsubscribe = source.on('event', event => {
			applyEvent(state.current, event);
			if (event.type === 'stopped') {
				// The last render before the screen is released shows every remaining row.
				if (timer) {
					clearTimeout(timer);
				}

				flush(true);
				return;
			}

			flushSoon();
		});
		return () => {
			unsubscribe();
			if (timer) {
				clearTimeout(timer);
			}
		};
	}, [source, flushIntervalMs, color]);

	useEffect(() => {
		const ticker = setInterval(() => {
			setClockNow(now());
			try {
				setKey(keyStatus());
			} catch {
				// Keep the last known key status if the store cannot be read for a moment.
			}
		}, 1000);
		return () => {
			clearInterval(ticker);
		};
	}, [keyStatus, now]);

	const {live, draining, stopped} = state.current;
	const counters = stopped?.counters ?? source.counters();
	const expiresAt = key.previousKeyExpiresAt ? Date.parse(key.previousKeyExpiresAt) : Number.NaN;
	const previousValid = Number.isFinite(expiresAt) && expiresAt > clockNow;
	return (
		<Box flexDirection="column">
			<Static key={batch.current.id} items={batch.current.items}>
				{item => {
					if (item.kind === 'banner') {
						return (
							<Box key={item.key} flexDirection="column" marginBottom={1}>
								<Text><Text bold color="cyan">platform-tui serve</Text>  listening on <Text bold>{url}</Text>  (POST {url}/webhook · GET {url}/health)</Text>
							</Box>
						);
					}

					return <Text key={item.key}>{item.text}</Text>;
				}}
			</Static>
			{[...live.values()].map(row => <Row key={row.key} row={row} live />)}
			<Box flexDirection="column" borderStyle="round" borderColor={stopped ? 'gray' : (draining ? 'yellow' : 'cyan')} paddingX={1} marginTop={live.size > 0 ? 1 : 0}>
				<Text>
					<Text bold>{url}</Text>
					{'  ·  '}
					<Text color="green">{`secrets ${secretCount} ok`}</Text>
					{'  ·  key '}
					<Text bold>{key.keyMasked}</Text>
					{previousValid
						? <Text color="yellow">{`  ·  previous key ${key.previousKeyMasked ?? ''} valid for ${formatCountdown(expiresAt - clockNow)}`}</Text>
						: null}
				</Text>
				<Text>{countersText(counters)}</Text>
				{stopped
					? <Text dimColor>{`Stopped.${stopped.cutOff > 0 ? ` ${stopped.cutOff} job${stopped.cutOff === 1 ? '' : 's'} cut off at the drain deadline (logs FAILED, apology written).` : ''}`}</Text>
					: (draining
						? <Text color="yellow"><Spinner type="dots" />{` Stopping: no new events; waiting up to ${formatMs(draining.timeoutMs)} for ${counters.processing} job${counters.processing === 1 ? '' : 's'}… (Ctrl+C again quits at once)`}</Text>
						: <Text dimColor>{`q or Ctrl+C to stop (running jobs get up to ${formatMs(drainTimeoutMs)} to finish)`}</Text>)}
			</Box>
		</Box>
	);
}

/**
 * Wraps a source so no event is lost between the first render and the screen's subscription
 * (effects run after the first commit): events are buffered (up to 10 000) until a listener
 * attaches, then replayed to it.
 */
export function replayingSource(source: ServeSource): ServeSource & {dispose(): void} {
	const buffered: ReceiverEvent[] = [];
	const listeners = new Set<ReceiverEventListener>();
	const dispose = source.on('event', event => {
		if (listeners.size === 0) {
			if (buffered.length < 10_000) {
				buffered.push(event);
			}

			return;
		}

		for (const listener of listeners) {
			listener(event);
		}
	});
	return {
		counters: () => source.counters(),
		on(_type, listener) {
			listeners.add(listener);
			for (const event of buffered.splice(0)) {
				listener(event);
			}

			return () => listeners.delete(listener);
		},
		dispose,
	};
}
