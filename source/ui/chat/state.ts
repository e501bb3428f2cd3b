/**
 * The chat prompt's state as one plain value and its pure transitions: the exchanges already
 * printed (append-only, for <Static>), the question being answered and how the session ended.
 */

export type ChatItem =
	| {kind: 'banner'; key: string; text: string}
	| {kind: 'question'; key: string; text: string}
	| {kind: 'reply'; key: string; text: string; elapsedMs: number}
	/** Ctrl+C during a reply: the wait stopped, the reply goes on arriving on the platform. */
	| {kind: 'stopped'; key: string; chatId: string; text: string}
	| {kind: 'error'; key: string; message: string};

export type ChatViewState = {
	chatId: string;
	items: ChatItem[];
	/** The question in flight and the reply text so far. */
	pending?: {question: string; text: string; sentAt: number};
	/** Set once the session is over: 0 ended by the user, 130 cancelled. */
	exitCode?: number;
};

export function initialChatState(chatId: string, banner?: string): ChatViewState {
	return {chatId, items: banner === undefined ? [] : [{kind: 'banner', key: 'banner', text: banner}]};
}

function add(state: ChatViewState, item: ChatItem): ChatItem[] {
	return [...state.items, item];
}

/** A question was sent: it is printed at once, and its reply is awaited. */
export function asked(state: ChatViewState, question: string, now: number): ChatViewState {
	return {...state, items: add(state, {kind: 'question', key: `q${state.items.length}`, text: question}), pending: {question, text: '', sentAt: now}};
}

/** The reply grew. */
export function streamed(state: ChatViewState, text: string): ChatViewState {
	return state.pending === undefined ? state : {...state, pending: {...state.pending, text}};
}

/** The state without the question in flight. */
function settled(state: ChatViewState): ChatViewState {
	return {chatId: state.chatId, items: state.items, ...(state.exitCode === undefined ? {} : {exitCode: state.exitCode})};
}

export function replied(state: ChatViewState, text: string, elapsedMs: number): ChatViewState {
	return {...settled(state), items: add(state, {kind: 'reply', key: `r${state.items.length}`, text, elapsedMs})};
}

/** Ctrl+C mid-reply: what arrived so far is kept with a note. */
export function stopped(state: ChatViewState): ChatViewState {
	return {...settled(state), items: add(state, {kind: 'stopped', key: `s${state.items.length}`, chatId: state.chatId, text: state.pending?.text ?? ''})};
}

export function failed(state: ChatViewState, message: string): ChatViewState {
	return {...settled(state), items: add(state, {kind: 'error', key: `e${state.items.length}`, message})};
}

export function ended(state: ChatViewState, exitCode: number): ChatViewState {
	return {...state, exitCode};
}

/** The sentence printed when Ctrl+C stops the wait for a reply. */
export function stoppedNote(chatId: string): string {
	return `Stopped waiting; the reply keeps arriving in chat ${chatId} on the platform.`;
}
