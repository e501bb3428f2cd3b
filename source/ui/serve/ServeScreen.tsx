import {Box, Static, Text, useInput, useStdin, useStdout} from 'ink';
import {useEffect, useLayoutEffect, useRef, useState} from 'react';
import type {BackendStats, StoredEvent} from '../../receiver/backend.js';
import type {ReceiverEvent} from '../../receiver/events.js';
import {detailLines} from './details.js';
import {compactRows, liveLayout} from './layout.js';
import {LiveRow, replayRefusal, replayText} from './LiveRow.js';
import {paint, rowLine, rowWidth} from './rows.js';
import type {ServeSource} from './source.js';
import {applyEvent, initialServeState, type LogRow, type ServeState} from './state.js';
import {StatusPanel, statusPanelLines} from './StatusPanel.js';
import type {KeyStatus, StatusInput} from './status-lines.js';
import {clipboardSupported, helpLines, osc52} from '../events/inspector-format.js';
import {emptyQuery, filterHelp, filterText, isEmptyQuery, parseFilterText, queryText, type Query} from '../events/inspector-query.js';
import {matchingRows, serveKeys} from './keys.js';
import {useTerminalSize} from '../use-terminal-size.js';
import {wrapParagraphs} from '../wrap.js';

export type {KeyStatus} from './status-lines.js';
export {replayingSource, type ServeSource} from './source.js';

export type ServeScreenProps = {
	source: ServeSource;
	/** Where the receiver listens, e.g. http://127.0.0.1:8080. */
	url: string;
	secretCount: number;
	/** Where events are kept, e.g. `journal /home/me/.local/share/platform-tui` or `redis redis://…`. */
	store?: string;
	/** Said in the status box for as long as serve runs (a Redis without persistence). */
	warnings?: string[];
	drainTimeoutMs: number;
	keyStatus: () => KeyStatus;
	/** serve's status in a few words (ready, degraded …, draining) with the admin address; read every second. */
	health?: () => {text: string; ok: boolean; next?: string};
	/** Called on q or Ctrl+C: first to stop gracefully (drain), then with force=true to quit at once. */
	onQuit: (force: boolean) => void;
	/** Shortest time between two re-renders of the live part, ms. Default 100 (at most 10 a second). */
	flushIntervalMs?: number;
	now?: () => number;
	/** Colour the finished rows; default: when stdout is a TTY and NO_COLOR is not set. */
	color?: boolean;
};

type StaticItem = {kind: 'banner'; key: string} | {kind: 'rows'; key: string; text: string};

/** What a render shows: a copy made at each flush, so rendering never reads the folded state. */
type View = {
	batch: {id: number; items: StaticItem[]};
	/** The first live rows (no terminal shows more). */
	live: LogRow[];
	liveCount: number;
	recent: LogRow[];
	/** Finished rows not written yet (paused). */
	held: number;
	draining?: ServeState['draining'];
	stopped?: ServeState['stopped'];
};

const initialView: View = {batch: {id: 0, items: [{kind: 'banner', key: 'banner'}]}, live: [], liveCount: 0, recent: [], held: 0};

/** Live rows copied per flush: more than any terminal has lines. */
const maxLiveCopied = 300;

/** Finished rows written per render (Ink re-tokenizes every character it writes: this bounds a render). */
const maxRowsPerFlush = 50;
/** Finished rows waiting to be written; past it the oldest are summarized in one line. */
const maxPendingRows = 500;

/**
 * The live event log of `platform-tui serve`: a row per request or event (finished rows in
 * <Static>, one line each), the jobs still running with their stage, the selected row and its
 * details, and the status panel. The live area always stays shorter than the terminal.
 */
export function ServeScreen({source, url, secretCount, store, warnings, drainTimeoutMs, keyStatus, health, onQuit, flushIntervalMs = 100, now = Date.now, color: colorProp}: ServeScreenProps) {
	const {stdout} = useStdout();
	const size = useTerminalSize();
	const width = rowWidth(size.columns);
	const color = colorProp ?? (stdout.isTTY && !process.env.NO_COLOR && process.env.FORCE_COLOR !== '0');
	/** Receiver events fold into this (no render per event); `flush` copies what is shown into `view`. */
	const state = useRef<ServeState>(initialServeState());
	const [view, setView] = useState<View>(initialView);
	const [clockNow, setClockNow] = useState(now());
	const [key, setKey] = useState<KeyStatus>(() => keyStatus());
	const [status, setStatus] = useState(() => health?.());
	const [queue, setQueue] = useState<BackendStats['queue']>();
	const [selected, setSelected] = useState<string>();
	const [details, setDetails] = useState<{id: string; event: StoredEvent | undefined}>();
	const [notice, setNotice] = useState<string>();
	const [quitting, setQuitting] = useState(false);
	const [mode, setModeState] = useState<'rows' | 'search' | 'filter' | 'help'>('rows');
	// Keys of one chunk (typed text, then Enter) are handled before the next render: refs too.
	const modeRef = useRef(mode);
	const setMode = (next: typeof mode) => {
		modeRef.current = next;
		setModeState(next);
	};

	const [typed, setTypedState] = useState('');
	const typedRef = useRef('');
	const setTyped = (next: string) => {
		typedRef.current = next;
		setTypedState(next);
	};

	const [query, setQuery] = useState<Query>(emptyQuery);
	const [matched, setMatches] = useState<{query: Query; keys: Set<string>}>();
	const matches = matched?.query === query ? matched.keys : undefined;
	const [paused, setPaused] = useState(false);
	const pausedRef = useRef(false);
	const flushRef = useRef<() => void>(undefined);
	// While the editor has the terminal, the screen draws nothing and reads no key.
	const [editing, setEditing] = useState<string>();
	const editingRef = useRef(false);
	const {isRawModeSupported} = useStdin();
	const stopping = useRef(false);
	const widthRef = useRef(width);
	useEffect(() => {
		widthRef.current = width;
	}, [width]);
	const {recent} = view;
	// With a search or filter, the arrows move among the rows that match.
	const selectable = isEmptyQuery(query) ? recent : recent.filter(row => matches?.has(row.key));
	const selectedIndex = selected === undefined ? -1 : selectable.findIndex(row => row.key === selected);
	const selectedRow = selectedIndex === -1 ? undefined : selectable[selectedIndex];
	// What the keys act on, as of the last render: Ink re-subscribes a new handler only after the
	// render is on screen, so a key pressed right after another must not see the older state.
	const shown = useRef({recent: selectable, selectedIndex, selectedRow, details, query});
	useLayoutEffect(() => {
		shown.current = {recent: selectable, selectedIndex, selectedRow, details, query};
	});

	useEffect(() => {
		if (isEmptyQuery(query) || !source.event) {
			return;
		}

		let current = true;
		void matchingRows(recent, query, source.event, now()).then(keys => {
			if (current) {
				setMatches({query, keys});
			}
		}, () => undefined);
		return () => {
			current = false;
		};
	}, [query, recent, source, now]);

	const typing = (input: string, pressed: {escape: boolean; return: boolean; backspace: boolean; delete: boolean; ctrl: boolean; meta: boolean}) => {
		const current = modeRef.current;
		if (pressed.escape) {
			setMode('rows');
		} else if (pressed.return) {
			const {query} = shown.current;
			if (current === 'search') {
				setQuery({...query, search: typedRef.current.trim()});
			} else {
				const parsed = parseFilterText(typedRef.current);
				if ('error' in parsed) {
					setNotice(parsed.error);
					return;
				}

				setQuery({...query, filter: parsed.filter});
			}

			setNotice(undefined);
			setSelected(undefined);
			setDetails(undefined);
			setMode('rows');
		} else if (pressed.backspace || pressed.delete) {
			setTyped(typedRef.current.slice(0, -1));
		} else if (input && !pressed.ctrl && !pressed.meta) {
			setTyped(typedRef.current + input);
		}
	};

	useInput((input, pressed) => {
		const {recent, selectedIndex, selectedRow, details, query} = shown.current;
		if (modeRef.current === 'search' || modeRef.current === 'filter') {
			typing(input, pressed);
			return;
		}

		if (modeRef.current === 'help') {
			setMode('rows');
			return;
		}

		if (input === 'q' || (pressed.ctrl && input === 'c')) {
			if (stopping.current) {
				setQuitting(true);
			} else {
				onQuit(false);
			}

			stopping.current = true;
			return;
		}

		if (pressed.upArrow || pressed.downArrow) {
			const from = selectedIndex === -1 ? recent.length : selectedIndex;
			const next = Math.min(recent.length - 1, Math.max(0, from + (pressed.upArrow ? -1 : 1)));
			setSelected(recent[next]?.key);
			setDetails(undefined);
			setNotice(undefined);
		} else if (pressed.escape) {
			setSelected(undefined);
			setDetails(undefined);
			setNotice(undefined);
			setQuery(emptyQuery);
		} else if (input === '/' || input === 'f') {
			setTyped(input === '/' ? query.search : filterText(query.filter));
			setMode(input === '/' ? 'search' : 'filter');
		} else if (input === '?') {
			setMode('help');
		} else if (input === 'p') {
			pausedRef.current = !pausedRef.current;
			setPaused(pausedRef.current);
			flushRef.current?.();
		} else if (input === 'y') {
			if (!selectedRow?.eventId) {
				setNotice('select an event with ↑/↓ first, then press y to copy its id');
				return;
			}

			stdout.write(osc52(selectedRow.eventId));
			setNotice(clipboardSupported(process.env) ? `copied ${selectedRow.eventId}` : `copy ${selectedRow.eventId} (sent to the clipboard with OSC 52; this terminal shows no sign it takes it)`);
		} else if (input === 'e') {
			if (!selectedRow?.eventId || !source.edit) {
				setNotice(selectedRow?.eventId ? `not edited: ${selectedRow.eventId} cannot be edited from this screen` : 'select an event with ↑/↓ first, then press e to edit and replay it');
				return;
			}

			editingRef.current = true;
			setNotice(`editing ${selectedRow.eventId} in $VISUAL/$EDITOR…`);
			setEditing(selectedRow.eventId);
		} else if (pressed.return && selectedRow?.eventId) {
			const id = selectedRow.eventId;
			if (details?.id === id) {
				setDetails(undefined);
			} else {
				setDetails({id, event: undefined});
				void source.event?.(id).then(event => {
					setDetails(current => current?.id === id ? {id, event} : current);
				}, () => undefined);
			}
		} else if (input === 'r') {
			const refusal = replayRefusal(selectedRow, source.replay !== undefined);
			if (refusal !== undefined || !selectedRow?.eventId || !source.replay) {
				setNotice(refusal);
				return;
			}

			const id = selectedRow.eventId;
			state.current.replaying.add(id);
			setNotice(`replaying ${id}…`);
			source.replay(id).then(result => {
				// A replay that ran has its own row in the log (it says how it ended): no line is left behind.
				setNotice(current => result.outcome === 'done' ? (current === `replaying ${id}…` ? undefined : current) : replayText(id, result));
				if (result.outcome !== 'done') {
					state.current.replaying.delete(id);
				}
			}, (error: unknown) => {
				state.current.replaying.delete(id);
				setNotice(`replay of ${id} failed: ${error instanceof Error ? error.message : 'unknown error'}`);
			});
		}
	}, {isActive: isRawModeSupported && editing === undefined});

	useEffect(() => {
		if (editing === undefined || !source.edit) {
			return;
		}

		// Runs after the frame that gave the keys up: the editor gets a terminal no one else reads.
		void source.edit(editing).then(said => said, (error: unknown) => `edit of ${editing} failed: ${error instanceof Error ? error.message : 'unknown error'}`).then(said => {
			editingRef.current = false;
			setEditing(undefined);
			setNotice(said);
			flushRef.current?.();
		});
	}, [editing, source]);

	useEffect(() => {
		if (quitting) {
			// Rendered once without spinners; now the caller may unmount and exit.
			onQuit(true);
		}
	}, [quitting, onQuit]);

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

			// Paused, finished rows wait (the live rows and the box still change).
			if (editingRef.current && !all) {
				return;
			}

			for (const row of done.splice(0, all ? done.length : (pausedRef.current ? 0 : maxRowsPerFlush))) {
				lines.push(rowLine(row, color, widthRef.current));
			}

			const {live, recent: latest, draining, stopped} = state.current;
			setView(previous => ({
				// Static writes each item once; a new batch gets a new Static (keyed by the batch number).
				batch: lines.length > 0 ? {id: previous.batch.id + 1, items: [{kind: 'rows', key: `rows-${previous.batch.id + 1}`, text: lines.join('\n')}]} : previous.batch,
				live: [...live.values()].slice(0, maxLiveCopied),
				liveCount: live.size,
				recent: [...latest],
				held: done.length,
				...(draining ? {draining} : {}),
				...(stopped ? {stopped} : {}),
			}));
			if (done.length > 0 && !pausedRef.current) {
				timer = setTimeout(flush, flushIntervalMs);
			}
		};

		flushRef.current = () => {
			clearTimeout(timer);
			flush();
		};

		const unsubscribe = source.on('event', (event: ReceiverEvent) => {
			applyEvent(state.current, event);
			if (event.type === 'stopped') {
				// The last render before the screen is released shows every remaining row.
				clearTimeout(timer);
				flush(true);
				return;
			}

			timer ??= setTimeout(flush, flushIntervalMs);
		});
		return () => {
			unsubscribe();
			clearTimeout(timer);
		};
	}, [source, flushIntervalMs, color]);

	useEffect(() => {
		const tick = () => {
			if (editingRef.current) {
				return;
			}

			setClockNow(now());
			try {
				setKey(keyStatus());
			} catch {
				// Keep the last known key status if the store cannot be read for a moment.
			}

			setStatus(health?.());

			void source.backendStats?.().then(stats => {
				setQueue(stats.queue);
			}, () => undefined);
		};

		tick();
		const ticker = setInterval(tick, 1000);
		return () => {
			clearInterval(ticker);
		};
	}, [keyStatus, health, now, source]);

	const {live, liveCount, draining, stopped, batch} = view;
	const counters = stopped?.counters ?? source.counters();
	const statusInput: StatusInput = {
		url,
		secretCount,
		...(store ? {store} : {}),
		...(warnings && warnings.length > 0 ? {warnings} : {}),
		keyStatus: key,
		now: clockNow,
		counters,
		...(queue ? {queue} : {}),
		...(status ? {health: status} : {}),
		drainTimeoutMs,
		...(draining ? {draining} : {}),
		...(stopped ? {stopped} : {}),
		selectable: source.event !== undefined,
	};
	// The box never fills the window (its border takes 2 lines, and one stays free).
	const statusMax = Math.max(1, (size.rows ?? 24) - 3);
	const statusLines = statusPanelLines(statusInput, width, statusMax);
	const wantedDetails = details && selectedRow ? detailLines(selectedRow, details.event, width - 4, 1000).length + 2 : 0;
	// The keys' own lines (what is typed, the query, the pause, the help) go with the notice.
	const said = [
		mode === 'search' ? `/${typed}▏  (Enter search · Esc cancel)` : '',
		mode === 'filter' ? `filter: ${typed}▏  (${filterHelp})` : '',
		isEmptyQuery(query) ? '' : `${queryText(query)}: ${matches === undefined ? 'matching…' : `${selectable.length} of ${recent.length} rows match (↑/↓ select among them · Esc clears)`}`,
		paused ? `paused: ${view.held} finished rows held (p resumes)` : '',
		...(mode === 'help' ? helpLines(width - 1, Math.max(3, (size.rows ?? 24) - statusLines - 6), serveKeys) : []),
		notice ?? '',
	].filter(line => line !== '');
	const noticeText = said.length === 0 ? undefined : wrapParagraphs(said.join('\n'), width - 1);
	const noticeLines = noticeText === undefined ? 0 : noticeText.split('\n').length;
	const layout = liveLayout({rows: size.rows, statusLines, selected: selectedRow !== undefined, noticeLines, detailsWanted: wantedDetails, live: liveCount});
	const liveShown = live.slice(0, layout.liveRows);
	return (
		<Box flexDirection="column">
			<Static key={batch.id} items={batch.items}>
				{item => item.kind === 'banner'
					? (
						<Box key={item.key} marginBottom={(size.rows ?? 24) >= compactRows ? 1 : 0}>
							<Text wrap="truncate-end"><Text bold color="cyan">platform-tui serve</Text>  listening on <Text bold>{url}</Text>  (POST /webhook · GET /health)</Text>
						</Box>
					)
					: <Text key={item.key}>{item.text}</Text>}
			</Static>
			{liveShown.map(row => <LiveRow key={row.key} row={row} width={width} spinning={!quitting && !stopped} />)}
			{layout.hiddenLive > 0 ? <Text dimColor>{`… ${layout.hiddenLive} more running (not shown: the terminal is too short)`}</Text> : null}
			{selectedRow ? <Text inverse wrap="truncate-end">{`› ${rowLine(selectedRow, false, width - 2)}`}</Text> : null}
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
