import {Box, Static, Text, useInput, useStdin} from 'ink';
import Spinner from 'ink-spinner';
import {useEffect, useState} from 'react';
import {plural} from '../../format/text.js';
import {displayWidth} from '../../format/width.js';
import {formatCountdown} from '../../format/duration.js';
import {WrappedText} from '../components/wrapped-text.js';
import {formatBytes, formatElapsed, formatRate, formatSeconds, retryText, truncate} from './format.js';
import {useTerminalSize} from '../use-terminal-size.js';
import {useExitAfterFrame} from '../use-exit-after-frame.js';
import {ErrorBox, FailedList, FileLine, StaticBlock} from './rows.js';
import {transferring} from './throughput.js';
import {ThroughputLine} from './ThroughputLine.js';
import {countFiles, hiddenSummary, liveRows, transferRate, type FileCounts, type UploadViewModel, type UploadViewState} from './state.js';

/**
 * The live area never reaches the terminal's height (Ink clears the screen and the scrollback
 * when a frame is as tall as the terminal): at most `rows − 2` lines, and never more than this
 * many, so shrinking the window later does not trip it either.
 */
export const maxLiveLines = 16;

/** Lines the live area may use in a terminal of `rows` rows. */
export function liveBudget(rows: number | undefined): number {
	return Math.max(4, Math.min((rows ?? 24) - 2, maxLiveLines));
}

function nameWidth(state: UploadViewState): number {
	return Math.min(32, Math.max(8, ...state.files.map(row => displayWidth(truncate(row.name, 32)))));
}

function TotalsLine({state, counts, now}: {state: UploadViewState; counts: FileCounts; now: number}) {
	const {rate, etaMs} = transferRate(state, now);
	return (
		<Text wrap='truncate'>
			<Text bold>{counts.uploaded}/{counts.total}</Text> files uploaded
			<Text dimColor> · </Text>{formatBytes(state.sentBytes)} of {formatBytes(state.totalBytes)}
			<Text dimColor> · </Text>{rate > 0 ? formatRate(rate) : '–'}
			{etaMs !== undefined && <Text dimColor> · ETA {formatCountdown(etaMs)}</Text>}
			<Text dimColor> · </Text>{counts.finished} ingested
			{counts.unchanged > 0 && <Text color='green'> · {counts.unchanged} unchanged</Text>}
			{counts.failed > 0 && <Text color='red'> · {counts.failed} failed</Text>}
		</Text>
	);
}

function IngestionLine({state, counts, now}: {state: UploadViewState; counts: FileCounts; now: number}) {
	const {ingestion} = state;
	if (ingestion.status === 'waiting') {
		return <Text wrap='truncate' dimColor>Ingestion waiting for the uploads</Text>;
	}

	const elapsed = (ingestion.endedAt ?? state.endedAt ?? now) - (ingestion.startedAt ?? now);
	const deadline = ingestion.timeoutMs === undefined ? '' : ` of ${formatSeconds(ingestion.timeoutMs)}`;
	const retry = state.retry && state.reply.status === 'waiting' ? ` · ${retryText(state.retry, now)}` : '';
	return (
		<Text wrap='truncate'>
			{ingestion.status === 'done' ? <Text color='green'>✔</Text> : <Text color='cyan'><Spinner type='dots'/></Text>}
			{' '}Ingestion <Text bold>{counts.finished}/{counts.total - counts.uploadFailed}</Text> finished
			<Text dimColor> · {formatElapsed(elapsed)}{deadline}{ingestion.round > 0 ? ` · round ${ingestion.round}` : ''}</Text>
			<Text color='yellow'>{retry}</Text>
		</Text>
	);
}

function ReplyLine({state, now}: {state: UploadViewState; now: number}) {
	const {reply} = state;
	if (reply.status === 'waiting') {
		return <Text wrap='truncate' dimColor>Reply     will ask: {truncate(reply.prompt ?? '', 200)}</Text>;
	}

	const waited = (state.endedAt ?? now) - (reply.sentAt ?? now);
	const retry = state.retry ? ` · ${retryText(state.retry, now)}` : '';
	const tail = reply.text === '' ? '' : ` · ${truncate(reply.text.slice(-300), 300)}`;
	return (
		<Text wrap='truncate'>
			<Text color='cyan'><Spinner type='dots'/></Text> Reply <Text dimColor>{reply.status === 'streaming' ? 'streaming' : 'waiting for the assistant'} · {formatElapsed(waited)}</Text>
			<Text color='yellow'>{retry}</Text>{tail}
		</Text>
	);
}

/** The live part while the run goes on: bounded by `budget` lines, the file rows that matter first. */
function LiveArea({state, now, budget, width}: {state: UploadViewState; now: number; budget: number; width: number}) {
	const counts = countFiles(state.files);
	const chatLine = state.chat.status !== 'created';
	const throughput = state.files.length > 0 && transferring(state);
	const fixed = (chatLine ? 1 : 0) + (state.files.length > 0 ? 3 : 0) + (throughput ? 1 : 0) + 1;
	const rows = liveRows(state.files);
	const room = Math.max(0, budget - fixed);
	const shown = rows.length <= room ? rows : rows.slice(0, Math.max(0, room - 1));
	const hidden = state.files.length - shown.length;
	const summary = hiddenSummary(state.files.filter(row => !shown.includes(row)));
	return (
		<Box flexDirection='column'>
			{chatLine && <Text wrap='truncate'><Text color='cyan'><Spinner type='dots'/></Text> Chat {state.chat.status === 'creating' ? `creating "${state.chat.title ?? ''}"…` : 'waiting…'} <Text dimColor>{formatElapsed(now - state.startedAt)}</Text></Text>}
			{state.files.length > 0 && <TotalsLine state={state} counts={counts} now={now}/>}
			{throughput && <ThroughputLine state={state} now={now}/>}
			{shown.map(row => <FileLine key={row.name} row={row} width={width} live now={now}/>)}
			{hidden > 0 && shown.length < rows.length && <Text wrap='truncate' dimColor>  … {hidden} more: {summary}</Text>}
			{state.files.length > 0 && <IngestionLine state={state} counts={counts} now={now}/>}
			{state.files.length > 0 && <ReplyLine state={state} now={now}/>}
			<Text dimColor wrap='truncate'>q or Ctrl+C to cancel</Text>
		</Box>
	);
}

/** The last frame: the totals, and how the run ended. No spinner is left behind. */
function EndArea({state}: {state: UploadViewState}) {
	const counts = countFiles(state.files);
	const failed = state.result?.failed ?? [];
	const chat = state.chat.id === undefined ? 'no chat was created' : `chat ${state.chat.id} was created${counts.uploaded > 0 ? ` and keeps ${plural(counts.uploaded, 'uploaded file')}` : ''}`;
	return (
		<Box flexDirection='column'>
			{state.files.length > 0 && <TotalsLine state={state} counts={counts} now={state.endedAt ?? 0}/>}
			{failed.length > 0 && <FailedList failed={failed}/>}
			{state.result && <WrappedText><Text color={failed.length > 0 ? 'yellow' : 'green'}>Done</Text>: chat {state.result.chatId} · {plural(state.result.contentIds.length, 'file')} asked about{failed.length > 0 ? ` · ${failed.length} left out` : ''} · {formatElapsed((state.endedAt ?? state.startedAt) - state.startedAt)}</WrappedText>}
			{state.error !== undefined && <ErrorBox message={state.error}/>}
			{state.cancelled && <WrappedText color='yellow'>Cancelled; in-flight requests were aborted. {chat.charAt(0).toUpperCase()}{chat.slice(1)}.</WrappedText>}
			{state.cancelled && state.resume !== undefined && <WrappedText>{state.resume}</WrappedText>}
		</Box>
	);
}

/** Re-renders from the model at most `maxUpdatesPerSecond` times a second (the end of the run at once). */
function useThrottledState(model: UploadViewModel, maxUpdatesPerSecond: number): UploadViewState {
	const [state, setState] = useState(model.state);
	useEffect(() => {
		const interval = 1000 / maxUpdatesPerSecond;
		let timer: NodeJS.Timeout | undefined;
		let last = 0;
		const update = (): void => {
			timer = undefined;
			last = model.now();
			setState(model.state);
		};

		const unsubscribe = model.subscribe(urgent => {
			if (urgent || model.state.done) {
				clearTimeout(timer);
				update();
				return;
			}

			timer ??= setTimeout(update, Math.max(0, interval - (model.now() - last)));
		});
		// Events applied between the first render and this subscription reach the screen too.
		timer = setTimeout(update, 0);
		return () => {
			unsubscribe();
			clearTimeout(timer);
		};
	}, [model, maxUpdatesPerSecond]);
	return state;
}

/** Re-renders twice a second while `active`, so elapsed times move; returns the time to show. */
function useClock(model: UploadViewModel, active: boolean): number {
	const [, setTick] = useState(0);
	useEffect(() => {
		if (!active) {
			return;
		}

		const timer = setInterval(() => {
			setTick(tick => tick + 1);
		}, 500);
		return () => {
			clearInterval(timer);
		};
	}, [model, active]);
	return model.now();
}

function CancelKeys({onCancel}: {onCancel: () => void}) {
	useInput((input, key) => {
		if (input === 'q' || (key.ctrl && input === 'c') || key.escape) {
			onCancel();
		}
	});
	return null;
}

export type UploadAppProps = {
	model: UploadViewModel;
	/** Called on `q`, Escape or Ctrl+C while the run is going. */
	onCancel: () => void;
	maxUpdatesPerSecond?: number;
	/** The terminal height to fit; default: stdout's, following resizes. */
	rows?: number;
};

/** The live screen of `platform-tui upload`. */
export function UploadApp({model, onCancel, maxUpdatesPerSecond = 10, rows}: UploadAppProps) {
	const state = useThrottledState(model, maxUpdatesPerSecond);
	const now = useClock(model, !state.done);
	const terminalRows = useTerminalSize().rows;
	const {isRawModeSupported} = useStdin();
	useExitAfterFrame(state.done);
	const width = nameWidth(state);
	return (
		<>
			<Static items={state.finished}>
				{item => <StaticBlock key={item.key} item={item} width={width}/>}
			</Static>
			{state.done ? <EndArea state={state}/> : <LiveArea state={state} now={now} budget={liveBudget(rows ?? terminalRows)} width={width}/>}
			{isRawModeSupported && !state.done && <CancelKeys onCancel={onCancel}/>}
		</>
	);
}
