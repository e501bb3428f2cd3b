/**
 * The event inspector (`platform-tui events` in a terminal): the whole journal newest first, read a
 * page at a time as the cursor moves, following new events; search, filters, a detail pane, replay,
 * edit-and-replay, copy, pause and a help overlay. Full screen: every line is cut to the width, and
 * the screen is one line shorter than the window.
 */
import {Box, Text, useInput} from 'ink';
import {useEffect, useLayoutEffect, useRef, useState} from 'react';
import type {StoredEvent} from '../../receiver/store/backend.js';
import {useTerminalSize} from '../use-terminal-size.js';
import {wrapParagraphs} from '../wrap.js';
import {detailLines, footerHint, helpLines, listLines, type InspectorMode} from './inspector-format.js';
import {emptyQuery, filterHelp, filterText, parseFilterText, queryMatcher, queryText, timeWindow, type Query} from './inspector-query.js';
import {headerWithPulse} from './inspector-pulse.js';
import {useInspectorPulse} from './use-inspector-pulse.js';
import {loadNewer, loadOlder, moveCursor, newerCount, openWindow, scrolled, selectedRow, wantsOlder, type Reader, type Scope, type Window} from './inspector-window.js';

export type InspectorActions = {
	/** Replays the event; resolves to a sentence of the outcome. */
	replay(event: StoredEvent): Promise<string>;
	/** Opens its body in the editor, stores the edited copy and processes it; resolves to a sentence. */
	edit(event: StoredEvent): Promise<string>;
	/** Copies the id; returns what to say. */
	copy(id: string): string;
};

export type InspectorProps = {
	read: Reader;
	/** The whole event, steps included. */
	get: (id: string) => Promise<StoredEvent | undefined>;
	/** Where the events are, for the header. */
	where: string;
	/** Said in the footer when the screen opens (a data or config folder others can reach), until the next notice. */
	notice?: string;
	actions: InspectorActions;
	onQuit: () => void;
	now?: () => number;
	/** How often new events are looked for, ms. */
	pollMs?: number;
	colour: boolean;
};

type Mode = InspectorMode;

/** Lines the list leaves to the header, the table's heading and one free line (the footer's lines come on top). */
const chrome = 3;

function scopeOf(query: Query, now: number): Scope {
	const match = queryMatcher(query);
	return {...(match ? {match} : {}), ...timeWindow(query.filter, now)};
}

export function InspectorScreen({read, get, where, notice: firstNotice, actions, onQuit, now = Date.now, pollMs = 500, colour}: InspectorProps) {
	const size = useTerminalSize();
	const width = Math.max(20, size.columns ?? 80);
	const height = Math.max(6, size.rows ?? 24);
	// Events a read asks for: two screens' worth, whatever the footer takes.
	const readRows = 2 * Math.max(1, height - chrome - 1);
	const [query, setQuery] = useState<Query>(emptyQuery);
	// The query's scope as of the last key (not the last render): a read queued before a new query
	// must not use the old one.
	const scopeRef = useRef<Scope>({});
	const [window, setWindow] = useState<Window>(() => openWindow(read, {}, readRows));
	const [mode, setModeState] = useState<Mode>('list');
	// Read by the key handler: a chunk of keys is handled before the next render.
	const modeRef = useRef<Mode>('list');
	const setMode = (next: Mode) => {
		modeRef.current = next;
		setModeState(next);
	};

	/** A new search or filter: its first page, read at once (no frame shows the old rows under it). */
	const applyQuery = (next: Query) => {
		setQuery(next);
		scopeRef.current = scopeOf(next, now());
		setWindow(openWindow(read, scopeRef.current, readRows));
	};

	const [input, setInputState] = useState('');
	// Keys of one chunk (typed text, then Enter) are handled before the next render: the typed
	// text is kept in a ref too, so Enter reads all of it.
	const inputRef = useRef('');
	const setInput = (next: string | ((previous: string) => string)) => {
		inputRef.current = typeof next === 'function' ? next(inputRef.current) : next;
		setInputState(inputRef.current);
	};

	const [paused, setPaused] = useState(false);
	const [waiting, setWaiting] = useState(0);
	const [notice, setNotice] = useState<string | undefined>(firstNotice);
	const [detail, setDetail] = useState<{event: StoredEvent; offset: number}>();
	const busy = useRef(false);
	const pulse = useInspectorPulse(window, query, now());

	const footer = mode === 'search'
		? `/${input}▏  (Enter search · Esc cancel)`
		: (mode === 'filter' ? `filter: ${input}▏  (${filterHelp})` : (notice ?? footerHint(mode, window)));
	// A notice wraps onto up to 3 lines (an id in it is never cut), the key hint onto 2 at 80
	// columns: the list's rows are what the footer leaves, so the cursor's row is always on screen.
	const footerLines = wrapParagraphs(footer, width).split('\n').slice(0, 3);
	const view = Math.max(1, height - chrome - footerLines.length);

	// A search over many events goes on a scan step at a time, the screen drawn between.
	useEffect(() => {
		if (!wantsOlder(window, view)) {
			return;
		}

		const timer = setTimeout(() => {
			setWindow(current => loadOlder(current, read, scopeRef.current, readRows));
		}, 0);
		return () => {
			clearTimeout(timer);
		};
	}, [window, view, read, readRows]);

	// Following: new events are added at the top; paused, they are counted.
	useEffect(() => {
		const timer = setInterval(() => {
			if (paused) {
				setWaiting(newerCount(window, read, scopeRef.current, 1000));
				return;
			}

			if (window.atNewest) {
				setWindow(current => loadNewer(current, read, scopeRef.current, 200, true));
			}
		}, pollMs);
		return () => {
			clearInterval(timer);
		};
	}, [paused, window, read, pollMs]);

	const run = (label: string, work: () => Promise<string>) => {
		if (busy.current) {
			return;
		}

		busy.current = true;
		setNotice(`${label}…`);
		work().then(setNotice, (error: unknown) => {
			setNotice(`${label} failed: ${error instanceof Error ? error.message : String(error)}`);
		}).finally(() => {
			busy.current = false;
			setWindow(current => loadNewer({...current, atNewest: true}, read, scopeRef.current, 200, true));
		});
	};

	// What the keys act on, as of the last frame on screen: Ink attaches a new key handler only
	// after a frame is drawn, so a key pressed right after one must not see the state before it.
	const shownRef = useRef({window, detail, query});
	useLayoutEffect(() => {
		shownRef.current = {window, detail, query};
	});
	const withEvent = (act: (event: StoredEvent) => void) => {
		const shown = shownRef.current;
		const event = shown.detail?.event ?? selectedRow(shown.window)?.event;
		if (event) {
			act(event);
		}
	};

	useInput((text, key) => {
		const mode = modeRef.current;
		const {query} = shownRef.current;
		const current = selectedRow(shownRef.current.window)?.event;
		if (mode === 'search' || mode === 'filter') {
			if (key.escape) {
				setMode('list');
			} else if (key.return) {
				if (mode === 'search') {
					applyQuery({...query, search: inputRef.current.trim()});
					setNotice(undefined);
				} else {
					const parsed = parseFilterText(inputRef.current);
					if ('error' in parsed) {
						setNotice(parsed.error);
						return;
					}

					applyQuery({...query, filter: parsed.filter});
					setNotice(undefined);
				}

				setMode('list');
			} else if (key.backspace || key.delete) {
				setInput(previous => previous.slice(0, -1));
			} else if (text && !key.ctrl && !key.meta) {
				setInput(previous => previous + text);
			}

			return;
		}

		if (mode === 'help') {
			setMode(shownRef.current.detail ? 'detail' : 'list');
			return;
		}

		if (text === 'q' || (key.ctrl && text === 'c')) {
			onQuit();
			return;
		}

		if (text === '?') {
			setMode('help');
			return;
		}

		if (text === 'r') {
			withEvent(event => {
				run(`Replaying ${event.id}`, async () => actions.replay(event));
			});
			return;
		}

		if (text === 'e') {
			withEvent(event => {
				run(`Editing ${event.id}`, async () => actions.edit(event));
			});
			return;
		}

		if (text === 'y') {
			withEvent(event => {
				setNotice(actions.copy(event.id));
			});
			return;
		}

		if (text === 'p') {
			setPaused(previous => !previous);
			setWaiting(0);
			return;
		}

		if (mode === 'detail') {
			if (key.escape || key.return) {
				setMode('list');
				setDetail(undefined);
			} else if (key.downArrow || text === 'j') {
				setDetail(previous => previous && {...previous, offset: previous.offset + 1});
			} else if (key.upArrow || text === 'k') {
				setDetail(previous => previous && {...previous, offset: Math.max(0, previous.offset - 1)});
			} else if (key.pageDown) {
				setDetail(previous => previous && {...previous, offset: previous.offset + height - 3});
			} else if (key.pageUp) {
				setDetail(previous => previous && {...previous, offset: Math.max(0, previous.offset - height + 3)});
			}

			return;
		}

		if (key.escape) {
			applyQuery(emptyQuery);
			setNotice(undefined);
		} else if (text === '/') {
			setInput(query.search);
			setMode('search');
		} else if (text === 'f') {
			setInput(filterText(query.filter));
			setMode('filter');
		} else if (key.return) {
			if (current) {
				void get(current.id).then(event => {
					setDetail({event: event ?? current, offset: 0});
					setMode('detail');
				});
			}
		} else if (key.downArrow || text === 'j') {
			setWindow(previous => moveCursor(previous, 1, view, read, scopeRef.current));
		} else if (key.upArrow || text === 'k') {
			setWindow(previous => moveCursor(previous, -1, view, read, scopeRef.current));
		} else if (key.pageDown || text === 'G') {
			setWindow(previous => moveCursor(previous, view, view, read, scopeRef.current));
		} else if (key.pageUp) {
			setWindow(previous => moveCursor(previous, -view, view, read, scopeRef.current));
		} else if (text === 'g') {
			setWindow(openWindow(read, scopeRef.current, readRows));
		}
	});

	const shown = scrolled(window, view);
	const header = [
		'events',
		paused ? (waiting > 0 ? `paused (${waiting >= 1000 ? '1000+' : waiting} new)` : 'paused') : 'following',
		queryText(query),
		where,
	].filter(part => part !== '').join(' · ');
	const body = mode === 'help'
		? helpLines(width, height - 5)
		: (mode === 'detail' && detail ? detailLines(detail.event, colour, width).slice(detail.offset) : listLines(shown, view, width, !colour));
	// Header, body and footer stay one line shorter than the window.
	const room = height - 2 - footerLines.length;
	const selectedLine = shown.cursor - shown.top + 1;
	return (
		<Box flexDirection="column" width={width}>
			<Text bold wrap="truncate-end">{headerWithPulse(header, pulse, width, colour)}</Text>
			{body.slice(0, room).map((line, index) => (
				<Text key={String(index)} wrap="truncate-end" inverse={mode === 'list' && shown.rows.length > 0 && index === selectedLine}>{line === '' ? ' ' : line}</Text>
			))}
			{Array.from({length: Math.max(0, room - body.length)}, (_, index) => <Text key={`blank-${String(index)}`}> </Text>)}
			{footerLines.map((line, index) => <Text key={`footer-${String(index)}`} dimColor={notice === undefined && mode !== 'search' && mode !== 'filter'} wrap="truncate-end">{line}</Text>)}
		</Box>
	);
}
