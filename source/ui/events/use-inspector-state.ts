/**
 * The inspector's state: the query and the window of rows it reads, the mode, the typed text,
 * pause, the notice and the detail pane. The mode and the typed text are kept in refs too: Ink
 * hands a chunk of keys (typed text, then Enter) to the handler before the next render.
 */
import {useRef, useState} from 'react';
import type {StoredEvent} from '../../receiver/store/backend.js';
import type {InspectorMode} from './inspector-format.js';
import {emptyQuery, queryMatcher, timeWindow, type Query} from './inspector-query.js';
import {loadNewer, openWindow, type Reader, type Scope, type Window} from './inspector-window.js';

export type Detail = {event: StoredEvent; offset: number};

function scopeOf(query: Query, now: number): Scope {
	const match = queryMatcher(query);
	return {...(match ? {match} : {}), ...timeWindow(query.filter, now)};
}

export function useInspectorState(read: Reader, readRows: number, firstNotice: string | undefined, now: () => number) {
	const [query, setQuery] = useState<Query>(emptyQuery);
	// The query's scope as of the last key (not the last render): a read queued before a new query
	// must not use the old one.
	const scopeRef = useRef<Scope>({});
	const [window, setWindow] = useState<Window>(() => openWindow(read, {}, readRows));
	const [mode, setModeState] = useState<InspectorMode>('list');
	// Read by the key handler: a chunk of keys is handled before the next render.
	const modeRef = useRef<InspectorMode>('list');
	const setMode = (next: InspectorMode) => {
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
	const [detail, setDetail] = useState<Detail>();
	const busy = useRef(false);

	/** Runs one action at a time (replay, edit): its label, then its sentence, in the footer; then the newest rows. */
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

	return {query, scopeRef, window, setWindow, mode, modeRef, setMode, applyQuery, input, inputRef, setInput, paused, setPaused, waiting, setWaiting, notice, setNotice, detail, setDetail, run};
}

export type InspectorState = ReturnType<typeof useInspectorState>;
