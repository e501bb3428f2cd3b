/**
 * What each key of the inspector does: typing a search or a filter, the help overlay, the actions
 * on the selected event (replay, edit, copy), pause, scrolling the detail pane, and moving through
 * the list. The handlers read the screen as of its last frame (`shown`) and change it through the
 * inspector's state; they hold none of their own.
 */
import type {RefObject} from 'react';
import type {StoredEvent} from '../../receiver/store/backend.js';
import {emptyQuery, filterText, parseFilterText, type Query} from './inspector-query.js';
import {moveCursor, openWindow, selectedRow, type Reader, type Window} from './inspector-window.js';
import type {Detail, InspectorState} from './use-inspector-state.js';

/** What the keys act on, as of the last frame on screen. */
export type Shown = {window: Window; detail: Detail | undefined; query: Query};

export type Pressed = {upArrow: boolean; downArrow: boolean; pageUp: boolean; pageDown: boolean; escape: boolean; return: boolean; backspace: boolean; delete: boolean; ctrl: boolean; meta: boolean};

export type InspectorActions = {
	/** Replays the event; resolves to a sentence of the outcome. */
	replay(event: StoredEvent): Promise<string>;
	/** Opens its body in the editor, stores the edited copy and processes it; resolves to a sentence. */
	edit(event: StoredEvent): Promise<string>;
	/** Copies the id; returns what to say. */
	copy(id: string): string;
};

export type InspectorKeyContext = {
	state: InspectorState;
	shown: RefObject<Shown>;
	read: Reader;
	get: (id: string) => Promise<StoredEvent | undefined>;
	actions: InspectorActions;
	onQuit: () => void;
	/** The rows the list shows, the rows a read asks for, and the screen's height. */
	view: number;
	readRows: number;
	height: number;
};

/** A key while a search or a filter is typed: Esc cancels, Enter applies, the rest edits the text. */
function typingKey({state, shown}: InspectorKeyContext, text: string, key: Pressed): void {
	const mode = state.modeRef.current;
	const {query} = shown.current;
	if (key.escape) {
		state.setMode('list');
	} else if (key.return) {
		if (mode === 'search') {
			state.applyQuery({...query, search: state.inputRef.current.trim()});
			state.setNotice(undefined);
		} else {
			const parsed = parseFilterText(state.inputRef.current);
			if ('error' in parsed) {
				state.setNotice(parsed.error);
				return;
			}

			state.applyQuery({...query, filter: parsed.filter});
			state.setNotice(undefined);
		}

		state.setMode('list');
	} else if (key.backspace || key.delete) {
		state.setInput(previous => previous.slice(0, -1));
	} else if (text && !key.ctrl && !key.meta) {
		state.setInput(previous => previous + text);
	}
}

/** The event the keys act on: the one in the detail pane, else the selected row's. */
function withEvent({shown}: InspectorKeyContext, act: (event: StoredEvent) => void): void {
	const event = shown.current.detail?.event ?? selectedRow(shown.current.window)?.event;
	if (event) {
		act(event);
	}
}

/** The keys that mean the same in the list and the detail pane; true when `text` was one. */
function commonKey(context: InspectorKeyContext, text: string, key: Pressed): boolean {
	const {state, actions} = context;
	if (text === 'q' || (key.ctrl && text === 'c')) {
		context.onQuit();
	} else if (text === '?') {
		state.setMode('help');
	} else if (text === 'r') {
		withEvent(context, event => {
			state.run(`Replaying ${event.id}`, async () => actions.replay(event));
		});
	} else if (text === 'e') {
		withEvent(context, event => {
			state.run(`Editing ${event.id}`, async () => actions.edit(event));
		});
	} else if (text === 'y') {
		withEvent(context, event => {
			state.setNotice(actions.copy(event.id));
		});
	} else if (text === 'p') {
		state.setPaused(previous => !previous);
		state.setWaiting(0);
	} else {
		return false;
	}

	return true;
}

/** The detail pane: Esc or Enter closes it, the arrows and pages scroll it. */
function detailKey({state, height}: InspectorKeyContext, text: string, key: Pressed): void {
	if (key.escape || key.return) {
		state.setMode('list');
		state.setDetail(undefined);
	} else if (key.downArrow || text === 'j') {
		state.setDetail(previous => previous && {...previous, offset: previous.offset + 1});
	} else if (key.upArrow || text === 'k') {
		state.setDetail(previous => previous && {...previous, offset: Math.max(0, previous.offset - 1)});
	} else if (key.pageDown) {
		state.setDetail(previous => previous && {...previous, offset: previous.offset + height - 3});
	} else if (key.pageUp) {
		state.setDetail(previous => previous && {...previous, offset: Math.max(0, previous.offset - height + 3)});
	}
}

/** The list: Esc clears the query, / and f start typing, Enter opens the detail pane, the rest moves. */
function listKey(context: InspectorKeyContext, text: string, key: Pressed): void {
	const {state, read, view} = context;
	const {query} = context.shown.current;
	const current = selectedRow(context.shown.current.window)?.event;
	const move = (delta: number) => {
		state.setWindow(previous => moveCursor(previous, delta, view, read, state.scopeRef.current));
	};

	if (key.escape) {
		state.applyQuery(emptyQuery);
		state.setNotice(undefined);
	} else if (text === '/') {
		state.setInput(query.search);
		state.setMode('search');
	} else if (text === 'f') {
		state.setInput(filterText(query.filter));
		state.setMode('filter');
	} else if (key.return) {
		if (current) {
			void context.get(current.id).then(event => {
				state.setDetail({event: event ?? current, offset: 0});
				state.setMode('detail');
			});
		}
	} else if (key.downArrow || text === 'j') {
		move(1);
	} else if (key.upArrow || text === 'k') {
		move(-1);
	} else if (key.pageDown || text === 'G') {
		move(view);
	} else if (key.pageUp) {
		move(-view);
	} else if (text === 'g') {
		state.setWindow(openWindow(read, state.scopeRef.current, context.readRows));
	}
}

/** One key of the inspector, whatever the mode. */
export function inspectorKey(context: InspectorKeyContext, text: string, key: Pressed): void {
	const mode = context.state.modeRef.current;
	if (mode === 'search' || mode === 'filter') {
		typingKey(context, text, key);
	} else if (mode === 'help') {
		context.state.setMode(context.shown.current.detail ? 'detail' : 'list');
	} else if (!commonKey(context, text, key)) {
		if (mode === 'detail') {
			detailKey(context, text, key);
		} else {
			listKey(context, text, key);
		}
	}
}
