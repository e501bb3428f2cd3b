/**
 * The event inspector (`platform-tui events` in a terminal): the whole journal newest first, read a
 * page at a time as the cursor moves, following new events; search, filters, a detail pane, replay,
 * edit-and-replay, copy, pause and a help overlay. Full screen: every line is cut to the width, and
 * the screen is one line shorter than the window.
 */
import {Box, Text, useInput} from 'ink';
import {useLayoutEffect, useRef} from 'react';
import type {StoredEvent} from '../../receiver/store/backend.js';
import {useTerminalSize} from '../use-terminal-size.js';
import {wrapParagraphs} from '../wrap.js';
import {inspectorKey, type InspectorActions, type Shown} from './inspector-keys.js';
import {detailLines, footerHint, helpLines, listLines} from './inspector-format.js';
import {filterHelp, queryText} from './inspector-query.js';
import {headerWithPulse} from './inspector-pulse.js';
import {useInspectorPulse} from './use-inspector-pulse.js';
import {scrolled, type Reader} from './inspector-window.js';
import {useInspectorFollow} from './use-inspector-follow.js';
import {useInspectorState} from './use-inspector-state.js';

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

/** Lines the list leaves to the header, the table's heading and one free line (the footer's lines come on top). */
const chrome = 3;

export function InspectorScreen({read, get, where, notice: firstNotice, actions, onQuit, now = Date.now, pollMs = 500, colour}: InspectorProps) {
	const size = useTerminalSize();
	const width = Math.max(20, size.columns ?? 80);
	const height = Math.max(6, size.rows ?? 24);
	// Events a read asks for: two screens' worth, whatever the footer takes.
	const readRows = 2 * Math.max(1, height - chrome - 1);
	const state = useInspectorState(read, readRows, firstNotice, now);
	const {query, window, mode, input, paused, waiting, notice, detail} = state;
	const pulse = useInspectorPulse(window, query, now());

	const footer = mode === 'search'
		? `/${input}▏  (Enter search · Esc cancel)`
		: (mode === 'filter' ? `filter: ${input}▏  (${filterHelp})` : (notice ?? footerHint(mode, window)));
	// A notice wraps onto up to 3 lines (an id in it is never cut), the key hint onto 2 at 80
	// columns: the list's rows are what the footer leaves, so the cursor's row is always on screen.
	const footerLines = wrapParagraphs(footer, width).split('\n').slice(0, 3);
	const view = Math.max(1, height - chrome - footerLines.length);
	useInspectorFollow({read, window, setWindow: state.setWindow, scopeRef: state.scopeRef, view, readRows, paused, setWaiting: state.setWaiting, pollMs});

	// What the keys act on, as of the last frame on screen: Ink attaches a new key handler only
	// after a frame is drawn, so a key pressed right after one must not see the state before it.
	const shownRef = useRef<Shown>({window, detail, query});
	useLayoutEffect(() => {
		shownRef.current = {window, detail, query};
	});
	useInput((text, key) => {
		inspectorKey({state, shown: shownRef, read, get, actions, onQuit, view, readRows, height}, text, key);
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
