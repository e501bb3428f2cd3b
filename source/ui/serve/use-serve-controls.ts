/**
 * The serve screen's interactive state: the selection and its details, the search and filter, the
 * pause, the notice, the editor and the quit, with the keys that change them (serve-key-actions).
 */
import {useInput, useStdin} from 'ink';
import {useEffect, useLayoutEffect, useRef, useState, type RefObject} from 'react';
import {emptyQuery, isEmptyQuery, type Query} from '../events/inspector-query.js';
import {matchingRows} from './keys.js';
import {handleServeKey, type Details, type Mode, type Shown} from './serve-key-actions.js';
import type {ServeSource} from './source.js';
import type {LogRow, ServeState} from './state.js';

/** State that keys of one chunk (typed text, then Enter) read before the next render: kept in a ref too. */
function useRefState<T>(initial: T): [T, RefObject<T>, (next: T) => void] {
	const [value, setValue] = useState(initial);
	const ref = useRef(initial);
	return [value, ref, (next: T) => {
		ref.current = next;
		setValue(next);
	}];
}

/** The keys of the rows whose stored event matches `query` (undefined until they are known). */
function useMatches(query: Query, recent: LogRow[], source: ServeSource, now: () => number): Set<string> | undefined {
	const [matched, setMatches] = useState<{query: Query; keys: Set<string>}>();
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
	return matched?.query === query ? matched.keys : undefined;
}

export type ServeControlsOptions = {
	source: ServeSource;
	onQuit: (force: boolean) => void;
	now: () => number;
	write: (text: string) => void;
	recent: LogRow[];
	state: RefObject<ServeState>;
	flush: RefObject<(() => void) | undefined>;
	paused: RefObject<boolean>;
	editing: RefObject<boolean>;
};

export type ServeControls = {
	mode: Mode;
	typed: string;
	query: Query;
	/** Rows the arrows move among (with a search or filter: those that match). */
	selectable: LogRow[];
	/** Undefined while a search or filter is being matched. */
	matches: Set<string> | undefined;
	selectedRow: LogRow | undefined;
	details: Details | undefined;
	notice: string | undefined;
	paused: boolean;
	quitting: boolean;
};

export function useServeControls({source, onQuit, now, write, recent, state, flush, paused: pausedRef, editing: editingRef}: ServeControlsOptions): ServeControls {
	const [selected, setSelected] = useState<string>();
	const [details, setDetails] = useState<Details>();
	const [notice, setNotice] = useState<string>();
	const [quitting, setQuitting] = useState(false);
	const [mode, modeRef, setMode] = useRefState<Mode>('rows');
	const [typed, typedRef, setTyped] = useRefState('');
	const [query, setQuery] = useState<Query>(emptyQuery);
	const matches = useMatches(query, recent, source, now);
	const [paused, setPaused] = useState(false);
	// While the editor has the terminal, the screen draws nothing and reads no key.
	const [editing, setEditing] = useState<string>();
	const {isRawModeSupported} = useStdin();
	const stopping = useRef(false);
	const selectable = isEmptyQuery(query) ? recent : recent.filter(row => matches?.has(row.key));
	const selectedIndex = selected === undefined ? -1 : selectable.findIndex(row => row.key === selected);
	const selectedRow = selectedIndex === -1 ? undefined : selectable[selectedIndex];
	// What the keys act on, as of the last render: Ink re-subscribes a new handler only after the
	// render is on screen, so a key pressed right after another must not see the older state.
	const shown = useRef<Shown>({recent: selectable, selectedIndex, selectedRow, details, query});
	useLayoutEffect(() => {
		shown.current = {recent: selectable, selectedIndex, selectedRow, details, query};
	});

	useInput((input, pressed) => {
		handleServeKey({
			source, onQuit, write, state, shown, mode: modeRef, setMode, typed: typedRef, setTyped, stopping, paused: pausedRef, setPaused, flush, editing: editingRef, setEditing, setQuitting, setQuery, setNotice, setSelected, setDetails,
		}, input, pressed);
	}, {isActive: isRawModeSupported && editing === undefined});

	useEffect(() => {
		if (editing === undefined || !source.edit) {
			return;
		}

		// Runs after the frame that gave the keys up: the editor gets a terminal no one else reads.
		// The copy's job gets a row labelled "edited" (state.ts), not "resumed".
		void source.edit(editing, copyId => {
			state.current.edited.add(copyId);
		}).then(said => said, (error: unknown) => `edit of ${editing} failed: ${error instanceof Error ? error.message : 'unknown error'}`).then(said => {
			editingRef.current = false;
			setEditing(undefined);
			setNotice(said);
			flush.current?.();
		});
	}, [editing, source, flush, editingRef, state]);

	useEffect(() => {
		if (quitting) {
			// Rendered once without spinners; now the caller may unmount and exit.
			onQuit(true);
		}
	}, [quitting, onQuit]);

	return {mode, typed, query, selectable, matches, selectedRow, details, notice, paused, quitting};
}
