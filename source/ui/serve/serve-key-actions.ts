/**
 * What each key of the serve screen does (serveKeys lists them for the help): typing a search or
 * a filter, moving the selection, and the actions on the selected row (details, replay, edit,
 * copy). The handlers read the screen as of its last render (`shown`) and change it through the
 * setters they are given; they hold no state of their own.
 */
import type {RefObject} from 'react';
import type {StoredEvent} from '../../receiver/store/backend.js';
import {clipboardSupported, osc52} from '../events/inspector-format.js';
import {emptyQuery, filterText, parseFilterText, type Query} from '../events/inspector-query.js';
import {replayRefusal, replayText} from './LiveRow.js';
import type {ServeSource} from './source.js';
import type {LogRow, ServeState} from './state.js';

export type Mode = 'rows' | 'search' | 'filter' | 'help';

export type Details = {id: string; event: StoredEvent | undefined};

/** What the keys act on, as of the last render. */
export type Shown = {recent: LogRow[]; selectedIndex: number; selectedRow: LogRow | undefined; details: Details | undefined; query: Query};

export type Pressed = {upArrow: boolean; downArrow: boolean; escape: boolean; return: boolean; backspace: boolean; delete: boolean; ctrl: boolean; meta: boolean};

export type KeyContext = {
	source: ServeSource;
	onQuit: (force: boolean) => void;
	write: (text: string) => void;
	state: RefObject<ServeState>;
	shown: RefObject<Shown>;
	mode: RefObject<Mode>;
	setMode: (mode: Mode) => void;
	typed: RefObject<string>;
	setTyped: (text: string) => void;
	stopping: RefObject<boolean>;
	paused: RefObject<boolean>;
	setPaused: (paused: boolean) => void;
	flush: RefObject<(() => void) | undefined>;
	editing: RefObject<boolean>;
	setEditing: (id: string | undefined) => void;
	setQuitting: (quitting: boolean) => void;
	setQuery: (query: Query) => void;
	setNotice: (notice: string | undefined | ((current: string | undefined) => string | undefined)) => void;
	setSelected: (key: string | undefined) => void;
	setDetails: (details: Details | undefined | ((current: Details | undefined) => Details | undefined)) => void;
};

/** A key while a search or a filter is typed: Esc cancels, Enter applies, the rest edits the text. */
function typingKey(context: KeyContext, input: string, pressed: Pressed): void {
	const current = context.mode.current;
	if (pressed.escape) {
		context.setMode('rows');
	} else if (pressed.return) {
		const {query} = context.shown.current;
		if (current === 'search') {
			context.setQuery({...query, search: context.typed.current.trim()});
		} else {
			const parsed = parseFilterText(context.typed.current);
			if ('error' in parsed) {
				context.setNotice(parsed.error);
				return;
			}

			context.setQuery({...query, filter: parsed.filter});
		}

		context.setNotice(undefined);
		context.setSelected(undefined);
		context.setDetails(undefined);
		context.setMode('rows');
	} else if (pressed.backspace || pressed.delete) {
		context.setTyped(context.typed.current.slice(0, -1));
	} else if (input && !pressed.ctrl && !pressed.meta) {
		context.setTyped(context.typed.current + input);
	}
}

/** Enter: shows the selected event's details, or hides them. */
function toggleDetails(context: KeyContext, id: string): void {
	if (context.shown.current.details?.id === id) {
		context.setDetails(undefined);
		return;
	}

	context.setDetails({id, event: undefined});
	void context.source.event?.(id).then(event => {
		context.setDetails(current => current?.id === id ? {id, event} : current);
	}, () => undefined);
}

/** r: replays the selected failed event; its own row in the log says how it ended. */
function replay(context: KeyContext, selectedRow: LogRow | undefined): void {
	const {source, state, setNotice} = context;
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

/** y, e, Enter and r: the actions on the selected row. */
function rowAction(context: KeyContext, input: string, pressed: Pressed): void {
	const {selectedRow} = context.shown.current;
	if (input === 'y') {
		if (!selectedRow?.eventId) {
			context.setNotice('select an event with ↑/↓ first, then press y to copy its id');
			return;
		}

		context.write(osc52(selectedRow.eventId));
		context.setNotice(clipboardSupported(process.env) ? `copied ${selectedRow.eventId}` : `copy ${selectedRow.eventId} (sent to the clipboard with OSC 52; this terminal shows no sign it takes it)`);
	} else if (input === 'e') {
		if (!selectedRow?.eventId || !context.source.edit) {
			context.setNotice(selectedRow?.eventId ? `not edited: ${selectedRow.eventId} cannot be edited from this screen` : 'select an event with ↑/↓ first, then press e to edit and replay it');
			return;
		}

		context.editing.current = true;
		context.setNotice(`editing ${selectedRow.eventId} in $VISUAL/$EDITOR…`);
		context.setEditing(selectedRow.eventId);
	} else if (pressed.return && selectedRow?.eventId) {
		toggleDetails(context, selectedRow.eventId);
	} else if (input === 'r') {
		replay(context, selectedRow);
	}
}

/** Handles a key of the serve screen. */
export function handleServeKey(context: KeyContext, input: string, pressed: Pressed): void {
	const {recent, selectedIndex, query} = context.shown.current;
	if (context.mode.current === 'search' || context.mode.current === 'filter') {
		typingKey(context, input, pressed);
		return;
	}

	if (context.mode.current === 'help') {
		context.setMode('rows');
		return;
	}

	if (input === 'q' || (pressed.ctrl && input === 'c')) {
		if (context.stopping.current) {
			context.setQuitting(true);
		} else {
			context.onQuit(false);
		}

		context.stopping.current = true;
		return;
	}

	if (pressed.upArrow || pressed.downArrow) {
		const from = selectedIndex === -1 ? recent.length : selectedIndex;
		const next = Math.min(recent.length - 1, Math.max(0, from + (pressed.upArrow ? -1 : 1)));
		context.setSelected(recent[next]?.key);
		context.setDetails(undefined);
		context.setNotice(undefined);
	} else if (pressed.escape) {
		context.setSelected(undefined);
		context.setDetails(undefined);
		context.setNotice(undefined);
		context.setQuery(emptyQuery);
	} else if (input === '/' || input === 'f') {
		context.setTyped(input === '/' ? query.search : filterText(query.filter));
		context.setMode(input === '/' ? 'search' : 'filter');
	} else if (input === '?') {
		context.setMode('help');
	} else if (input === 'p') {
		context.paused.current = !context.paused.current;
		context.setPaused(context.paused.current);
		context.flush.current?.();
	} else {
		rowAction(context, input, pressed);
	}
}
