import {Box, Static, Text, useApp, useInput, useStdin} from 'ink';
import Spinner from 'ink-spinner';
import {useEffect, useState, type ReactNode} from 'react';
import {formatBytes, formatElapsed, formatRate, formatSeconds, progressBar, truncate} from './format.js';
import type {FileRow, UploadViewModel, UploadViewState} from './state.js';

/** Most live file rows shown at once; the rest are counted in one line. */
export const maxLiveRows = 8;

/** A labelled section: a coloured bar on the left, the title in a column, the content beside it. */
function Panel({title, color, children}: {title: string; color?: string; children: ReactNode}) {
	return (
		<Box borderStyle='bold' borderTop={false} borderBottom={false} borderRight={false} borderColor={color ?? 'gray'} paddingLeft={1}>
			<Box width={10} flexShrink={0}>
				<Text bold color={color}>{title}</Text>
			</Box>
			<Box flexDirection='column' flexGrow={1}>
				{children}
			</Box>
		</Box>
	);
}

function SpacePanel({state}: {state: UploadViewState}) {
	if (state.space) {
		const {space} = state;
		return (
			<Panel title='Space'>
				<Text>
					<Text bold>{space.name}</Text>
					<Text dimColor> · model </Text>{space.languageModel}
					<Text dimColor> · chat upload </Text>{space.chatUpload}
				</Text>
				<Text><Text dimColor>modules </Text>{space.modules.length > 0 ? space.modules.join(', ') : '(none)'}</Text>
			</Panel>
		);
	}

	if (state.spaceWarning) {
		return (
			<Panel title='Space' color='yellow'>
				<Text color='yellow'>⚠ {state.spaceWarning}</Text>
			</Panel>
		);
	}

	return (
		<Panel title='Space'>
			<Text dimColor>{state.done ? '—' : <><Spinner type='dots'/> loading…</>}</Text>
		</Panel>
	);
}

function ChatPanel({state, now}: {state: UploadViewState; now: number}) {
	const elapsed = formatElapsed((state.endedAt ?? now) - state.startedAt);
	if (state.chat.status === 'created') {
		return (
			<Panel title='Chat'>
				<Text>
					<Text color='green'>✔ </Text>
					<Text bold>{state.chat.id}</Text>
					<Text dimColor> · {state.chat.title} · {elapsed} elapsed</Text>
				</Text>
			</Panel>
		);
	}

	return (
		<Panel title='Chat'>
			{state.done
				? <Text dimColor>not created</Text>
				: <Text><Text color='cyan'><Spinner type='dots'/></Text> {state.chat.status === 'creating' ? `creating "${state.chat.title ?? ''}"…` : 'waiting…'} <Text dimColor>{elapsed}</Text></Text>}
		</Panel>
	);
}

const phaseText: Record<FileRow['phase'], string> = {
	waiting: 'waiting',
	upserting: 'creating content',
	uploading: 'uploading',
	finalizing: 'finalizing',
	ingesting: 'ingesting',
	finished: 'FINISHED',
	failed: 'failed',
};

/** One line per file; `width` is the name column. */
export function FileLine({row, width, live}: {row: FileRow; width: number; live: boolean}) {
	const name = truncate(row.name, width).padEnd(width);
	const size = formatBytes(row.size).padStart(10);
	if (row.phase === 'finished') {
		return <Text><Text color='green'>✔</Text> {name} {size}  <Text color='green'>{row.state ?? 'FINISHED'}</Text><Text dimColor>  {row.contentId}</Text></Text>;
	}

	if (row.phase === 'failed') {
		return <Text><Text color='red'>✖</Text> {name} {size}  <Text color='red'>{row.state ?? 'upload failed'}</Text><Text dimColor>  {row.contentId ?? ''}</Text></Text>;
	}

	const icon = live && row.phase !== 'waiting' ? <Text color='cyan'><Spinner type='dots'/></Text> : <Text dimColor>·</Text>;
	if (row.phase === 'uploading') {
		return <Text>{icon} {name} {size}  <Text color='cyan'>{progressBar(row.sentBytes, row.size)}</Text></Text>;
	}

	return <Text>{icon} {name} {size}  <Text dimColor>{row.phase === 'ingesting' ? (row.state ?? 'QUEUED') : phaseText[row.phase]}</Text></Text>;
}

function nameWidth(state: UploadViewState): number {
	return Math.min(32, Math.max(8, ...state.files.map(row => row.name.length)));
}

function FilesPanel({state, now}: {state: UploadViewState; now: number}) {
	const width = nameWidth(state);
	const active = state.files.filter(row => row.phase !== 'finished' && row.phase !== 'failed' && row.phase !== 'waiting');
	const waiting = state.files.filter(row => row.phase === 'waiting');
	const shown = active.slice(0, maxLiveRows);
	const spare = maxLiveRows - shown.length;
	const shownWaiting = spare > 0 ? waiting.slice(0, Math.min(spare, 3)) : [];
	const hidden = active.length - shown.length + waiting.length - shownWaiting.length;
	const finishedCount = state.files.filter(row => row.phase === 'finished').length;
	const uploadedCount = state.files.filter(row => row.uploaded).length;
	const transferMs = state.uploadStartedAt === undefined ? 0 : (state.uploadEndedAt ?? state.endedAt ?? now) - state.uploadStartedAt;
	const rate = transferMs > 0 ? state.sentBytes / (transferMs / 1000) : 0;
	return (
		<Panel title='Files'>
			{state.files.length === 0 && <Text dimColor>{state.done ? 'none' : 'reading the folder…'}</Text>}
			{shown.map(row => <FileLine key={row.name} row={row} width={width} live={!state.done}/>)}
			{shownWaiting.map(row => <FileLine key={row.name} row={row} width={width} live={false}/>)}
			{hidden > 0 && <Text dimColor>  … {hidden} more</Text>}
			{state.files.length > 0 && (
				<Text>
					<Text bold>{uploadedCount}/{state.files.length}</Text> files uploaded
					<Text dimColor> · </Text>{formatBytes(state.sentBytes)} of {formatBytes(state.totalBytes)}
					<Text dimColor> · </Text>{rate > 0 ? formatRate(rate) : '–'}
					<Text dimColor> · </Text>{finishedCount} ingested
				</Text>
			)}
		</Panel>
	);
}

function IngestionPanel({state, now}: {state: UploadViewState; now: number}) {
	const {ingestion} = state;
	if (ingestion.status === 'waiting') {
		return <Panel title='Ingestion'><Text dimColor>waiting for the uploads</Text></Panel>;
	}

	const elapsed = (ingestion.endedAt ?? state.endedAt ?? now) - (ingestion.startedAt ?? now);
	const deadline = ingestion.timeoutMs === undefined ? '' : ` of ${formatSeconds(ingestion.timeoutMs)}`;
	return (
		<Panel title='Ingestion'>
			<Text>
				{ingestion.status === 'done' ? <Text color='green'>✔</Text> : (state.done ? <Text color='red'>✖</Text> : <Text color='cyan'><Spinner type='dots'/></Text>)}
				{' '}<Text bold>{ingestion.finished}/{ingestion.total}</Text> finished
				<Text dimColor> · {formatElapsed(elapsed)}{deadline}{ingestion.round > 0 ? ` · round ${ingestion.round}` : ''}</Text>
			</Text>
		</Panel>
	);
}

function ReplyPanel({state, now}: {state: UploadViewState; now: number}) {
	const {reply} = state;
	if (reply.status === 'waiting') {
		return <Panel title='Reply'><Text dimColor>{reply.prompt ? `will ask: ${truncate(reply.prompt, 80)}` : 'waiting'}</Text></Panel>;
	}

	if (reply.status === 'done') {
		return (
			<Panel title='Reply' color='green'>
				<Text>{reply.text === '' ? <Text dimColor>(empty reply)</Text> : reply.text}</Text>
				<Text dimColor>answered in {formatElapsed(reply.elapsedMs ?? 0)}</Text>
			</Panel>
		);
	}

	const waited = (state.endedAt ?? now) - (reply.sentAt ?? now);
	return (
		<Panel title='Reply'>
			<Text dimColor>asked: {truncate(reply.prompt ?? '', 80)}</Text>
			{reply.text !== '' && <Text>{reply.text}</Text>}
			{!state.done && <Text><Text color='cyan'><Spinner type='dots'/></Text> <Text dimColor>{reply.status === 'streaming' ? 'streaming' : 'waiting for the assistant'} · {formatElapsed(waited)}</Text></Text>}
		</Panel>
	);
}

function HistoryPanel({state}: {state: UploadViewState}) {
	if (!state.history) {
		return null;
	}

	return (
		<Panel title='History'>
			{state.history.length === 0 && <Text dimColor>(no messages)</Text>}
			{state.history.map((message, index) => (
				// eslint-disable-next-line react/no-array-index-key
				<Text key={index}><Text bold color={message.role === 'USER' ? 'blue' : 'magenta'}>{message.role.padEnd(9)}</Text> {truncate(message.text, 400)}</Text>
			))}
		</Panel>
	);
}

function ErrorPanel({message}: {message: string}) {
	return (
		<Box borderStyle='round' borderColor='red' paddingX={1}>
			<Text color='red' bold>Error </Text>
			<Text color='red'>{message}</Text>
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
		setState(model.state);
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
	/** A dim line above the panels (e.g. the addresses of `--local`). */
	banner?: string;
};

/** The live screen of `platform-tui upload`. */
export function UploadApp({model, onCancel, maxUpdatesPerSecond = 10, banner}: UploadAppProps) {
	const state = useThrottledState(model, maxUpdatesPerSecond);
	const now = useClock(model, !state.done);
	const {isRawModeSupported} = useStdin();
	const {exit} = useApp();
	useEffect(() => {
		if (state.done) {
			// Let the last frame be drawn, then release the terminal.
			const timer = setTimeout(() => {
				exit();
			}, 0);
			return () => {
				clearTimeout(timer);
			};
		}

		return undefined;
	}, [state.done, exit]);
	const width = nameWidth(state);
	return (
		<>
			<Static items={state.finished}>
				{item => <FileLine key={item.key} row={item.row} width={width} live={false}/>}
			</Static>
			<Box flexDirection='column'>
				{banner !== undefined && <Text dimColor>{banner}</Text>}
				<SpacePanel state={state}/>
				<ChatPanel state={state} now={now}/>
				<FilesPanel state={state} now={now}/>
				<IngestionPanel state={state} now={now}/>
				<ReplyPanel state={state} now={now}/>
				<HistoryPanel state={state}/>
				{state.error !== undefined && <ErrorPanel message={state.error}/>}
				{state.cancelled && <Text color='yellow'>Cancelled; in-flight requests were aborted.</Text>}
				{!state.done && <Text dimColor>q or Ctrl+C to cancel</Text>}
				{isRawModeSupported && !state.done && <CancelKeys onCancel={onCancel}/>}
			</Box>
		</>
	);
}
