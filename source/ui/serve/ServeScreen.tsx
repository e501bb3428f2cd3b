import {Box, Static, Text, useStdout} from 'ink';
import {useEffect, useRef} from 'react';
import {detailLines} from './details.js';
import {compactRows, liveLayout, statusBoxLines} from './layout.js';
import {LiveRow} from './LiveRow.js';
import {rowWidth, selectionText} from './rows.js';
import type {NoticeSource} from './notices.js';
import type {ServeSource} from './source.js';
import {StatusPanel, statusPanelContent, statusPanelLines} from './StatusPanel.js';
import type {KeyStatus, StatusInput} from './status-lines.js';
import {helpLines} from '../events/inspector-format.js';
import {filterHelp, isEmptyQuery, queryText, type Query} from '../events/inspector-query.js';
import {serveKeys} from './keys.js';
import type {Mode} from './serve-key-actions.js';
import {useServeControls, type ServeControls} from './use-serve-controls.js';
import {useServeStatus, type ServeHealth} from './use-serve-status.js';
import {useServeView, type View} from './use-serve-view.js';
import {useEventRate} from './use-event-rate.js';
import {useTerminalSize} from '../use-terminal-size.js';
import {wrapParagraphs} from '../wrap.js';
import {WrappedText} from '../components/wrapped-text.js';
import {plural} from '../../format/text.js';
import {colorEnabled} from '../../terminal.js';

export type {KeyStatus} from './status-lines.js';
export {replayingSource, type ServeSource} from './source.js';
export {noticeFeed, type Notice, type NoticeSource} from './notices.js';

export type ServeScreenProps = {
	source: ServeSource;
	/** Rows about no event written among the finished rows (listen's socket: streams, gaps); none for serve. */
	notices?: NoticeSource;
	/** Where the receiver listens, e.g. http://127.0.0.1:8080. */
	url: string;
	/** The header's command and the routes it names after the address; default serve's (`POST /webhook · GET /health`). */
	title?: ScreenTitle;
	/** The profile of the config file, when it is not `default`: named in the status box. */
	profile?: string;
	/** Endpoint secrets configured; undefined where none is used (listen answering over the event socket). */
	secretCount?: number;
	/** Where events are kept, e.g. `journal /home/me/.local/share/platform-tui` or `redis redis://…`. */
	store?: string;
	/** Said in the status box for as long as serve runs (a Redis without persistence). */
	warnings?: string[];
	drainTimeoutMs: number;
	keyStatus: () => KeyStatus;
	/** serve's status in a few words (ready, degraded …, draining) with the admin address; read every second. */
	health?: () => ServeHealth;
	/** Called on q or Ctrl+C: first to stop gracefully (drain), then with force=true to quit at once. */
	onQuit: (force: boolean) => void;
	/** Shortest time between two re-renders of the live part, ms. Default 100 (at most 10 a second). */
	flushIntervalMs?: number;
	now?: () => number;
	/** Colour the finished rows; default: as terminal.ts decides (a TTY, no NO_COLOR, TERM not dumb). */
	color?: boolean;
};

export type ScreenTitle = {command: string; routes?: string};

const serveTitle: ScreenTitle = {command: 'platform-tui serve', routes: 'POST /webhook · GET /health'};

/** The lines the keys add above the box: what is typed, the query, the pause, the help, the notice. */
function keyLines(input: {mode: Mode; typed: string; query: Query; matched: number | undefined; total: number; paused: boolean; held: number; help: string[]; notice: string | undefined}): string[] {
	const {mode, typed, query, matched, total} = input;
	return [
		mode === 'search' ? `/${typed}▏  (Enter search · Esc cancel)` : '',
		mode === 'filter' ? `filter: ${typed}▏  (${filterHelp})` : '',
		isEmptyQuery(query) ? '' : `${queryText(query)}: ${matched === undefined ? 'matching…' : `${matched} of ${total} rows match (↑/↓ select among them · Esc clears)`}`,
		input.paused ? `paused: ${plural(input.held, 'finished row')} held (p resumes)` : '',
		...input.help,
		input.notice ?? '',
	].filter(line => line !== '');
}

/**
 * The live event log of `platform-tui serve`: a row per request or event (finished rows in
 * <Static>, one line each), the jobs still running with their stage, the selected row and its
 * details, and the status panel. The live area always stays shorter than the terminal.
 */
export function ServeScreen({source, notices, url, title = serveTitle, profile, secretCount, store, warnings, drainTimeoutMs, keyStatus, health, onQuit, flushIntervalMs = 100, now = Date.now, color: colorProp}: ServeScreenProps) {
	const {stdout} = useStdout();
	const size = useTerminalSize();
	const width = rowWidth(size.columns);
	const color = colorProp ?? colorEnabled(stdout, process.env);
	const pausedRef = useRef(false);
	const editingRef = useRef(false);
	const widthRef = useRef(width);
	useEffect(() => {
		widthRef.current = width;
	}, [width]);
	const {view, state, flush} = useServeView({source, ...(notices ? {notices} : {}), flushIntervalMs, color, width: widthRef, paused: pausedRef, editing: editingRef});
	const {clockNow, key, status, queue} = useServeStatus({source, keyStatus, health, now, editing: editingRef});
	const rate = useEventRate(source, now);
	const controls = useServeControls({source, onQuit, now, write: text => stdout.write(text), recent: view.recent, state, flush, paused: pausedRef, editing: editingRef});
	const {stopped, draining} = view;
	const statusInput: StatusInput = {
		url,
		...(profile === undefined ? {} : {profile}),
		secretCount,
		...(store ? {store} : {}),
		...(warnings && warnings.length > 0 ? {warnings} : {}),
		keyStatus: key,
		now: clockNow,
		counters: stopped?.counters ?? source.counters(),
		...(queue ? {queue} : {}),
		...(status ? {health: status} : {}),
		drainTimeoutMs,
		...(draining ? {draining} : {}),
		...(stopped ? {stopped} : {}),
		selectable: source.event !== undefined,
		rate: {values: rate(now()), pictures: color},
	};
	return <ServeFrame view={view} controls={controls} statusInput={statusInput} url={url} title={title} size={size} width={width} />;
}

type ServeFrameProps = {
	view: View;
	controls: ServeControls;
	statusInput: StatusInput;
	url: string;
	title: ScreenTitle;
	size: {columns: number | undefined; rows: number | undefined};
	width: number;
};

/** One frame of the screen: the finished rows (once), the live rows, the keys' lines, the details and the box. */
function ServeFrame({view, controls, statusInput, url, title, size, width}: ServeFrameProps) {
	const {mode, typed, query, selectable, matches, selectedRow, details, notice, paused, quitting} = controls;
	const {live, liveCount, stopped, batch, recent} = view;
	const wantedDetails = details && selectedRow ? detailLines(selectedRow, details.event, width - 4, 1000).length + 2 : 0;
	// The keys' own lines (what is typed, the query, the pause, the help) go with the notice.
	const help = mode === 'help' ? helpLines(width - 1, Math.max(3, (size.rows ?? 24) - statusPanelLines(statusInput, width, Math.max(1, (size.rows ?? 24) - 3)) - 6), serveKeys) : [];
	const said = keyLines({mode, typed, query, matched: matches === undefined ? undefined : selectable.length, total: recent.length, paused, held: view.held, help, notice});
	const noticeText = said.length === 0 ? undefined : wrapParagraphs(said.join('\n'), width - 1);
	const noticeLines = noticeText === undefined ? 0 : noticeText.split('\n').length;
	// The box never fills the window (its border takes 2 lines, and one stays free); open details
	// make it give way on a short one.
	const statusMax = statusBoxLines({rows: size.rows, statusContent: statusPanelContent(statusInput, width).length, detailsWanted: wantedDetails, selected: selectedRow !== undefined, noticeLines});
	const statusLines = statusPanelLines(statusInput, width, statusMax);
	const layout = liveLayout({rows: size.rows, statusLines, selected: selectedRow !== undefined, noticeLines, detailsWanted: wantedDetails, live: liveCount});
	const liveShown = live.slice(0, layout.liveRows);
	return (
		<Box flexDirection="column">
			<Static key={batch.id} items={batch.items}>
				{item => item.kind === 'banner'
					? (
						// The header wraps at the window's width (less its last column) rather than being cut.
						<Box key={item.key} width={width - 1} marginBottom={(size.rows ?? 24) >= compactRows ? 1 : 0}>
							<WrappedText><Text bold color="cyan">{title.command}</Text>  listening on <Text bold>{url}</Text>{title.routes === undefined ? '' : `  (${title.routes})`}</WrappedText>
						</Box>
					)
					: <Text key={item.key}>{item.text}</Text>}
			</Static>
			{liveShown.map(row => <LiveRow key={row.key} row={row} width={width} spinning={!quitting && !stopped} />)}
			{layout.hiddenLive > 0 ? <Text dimColor>{`… ${layout.hiddenLive} more running (not shown: the terminal is too short)`}</Text> : null}
			{selectedRow ? <Text inverse wrap="truncate-end">{`› ${selectionText(selectedRow, width - 2)}`}</Text> : null}
			{noticeText === undefined ? null : <Text color="yellow">{noticeText}</Text>}
			{details && selectedRow && layout.detailLines > 0
				? (
					<Box flexDirection="column" borderStyle="single" borderColor="gray" paddingX={1}>
						{detailLines(selectedRow, details.event, width - 4, layout.detailLines - 2).map((line, index) => <Text key={String(index)} wrap="truncate-end">{line}</Text>)}
					</Box>
				)
				: null}
			<Box marginTop={layout.spacer && (liveShown.length > 0 || layout.hiddenLive > 0) ? 1 : 0}>
				<StatusPanel {...statusInput} quitting={quitting} width={width} maxLines={statusMax} />
			</Box>
		</Box>
	);
}
