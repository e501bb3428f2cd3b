import {useInput} from 'ink';
import {useEffect, useRef, useState, type RefObject} from 'react';
import {useExitAfterFrame} from '../use-exit-after-frame.js';
import {asked, ended, failed, initialChatState, replied, stopped, streamed, type ChatViewState} from './state.js';

/** Sends one question and waits for its reply; `onText` gets the text as it grows. Rejects on abort. */
export type Ask = (question: string, signal: AbortSignal, onText: (text: string) => void) => Promise<{text: string; elapsedMs: number}>;

export type ChatAppProps = {
	chatId: string;
	ask: Ask;
	/** Words an error in one sentence. */
	describe: (error: unknown) => string;
	banner?: string;
	/** Called once with the exit code when the session ends. */
	onEnd: (code: number) => void;
	clock?: () => number;
};

export type ChatSession = {
	state: ChatViewState;
	/** The clock as of the last tick (twice a second while a reply is awaited). */
	now: number;
	/** Sends a question; an empty one ends the session (exit 0). */
	submit: (value: string) => void;
};

/**
 * The chat prompt's session: its state, the question in flight (aborted by Ctrl+C), the elapsed
 * time's tick, and the end (onEnd with the exit code, then exit after the final frame).
 */
export function useChatSession({chatId, ask, describe, banner, onEnd, clock = Date.now}: ChatAppProps): ChatSession {
	const [state, setState] = useState<ChatViewState>(() => initialChatState(chatId, banner));
	const waiting = useRef<AbortController | undefined>(undefined);
	const [now, setNow] = useState(clock());

	useEffect(() => {
		if (state.pending === undefined) {
			return;
		}

		const timer = setInterval(() => {
			setNow(clock());
		}, 500);
		return () => {
			clearInterval(timer);
		};
	}, [state.pending, clock]);

	useEffect(() => {
		if (state.exitCode !== undefined) {
			onEnd(state.exitCode);
		}
	}, [state.exitCode, onEnd]);
	useExitAfterFrame(state.exitCode !== undefined);

	const submit = (value: string): void => {
		const question = value.trim();
		if (question === '') {
			setState(current => ended(current, 0));
			return;
		}

		const controller = new AbortController();
		waiting.current = controller;
		setNow(clock());
		setState(current => asked(current, question, clock()));
		ask(question, controller.signal, text => {
			setState(current => streamed(current, text));
		}).then(reply => {
			setState(current => replied(current, reply.text, reply.elapsedMs));
		}, (error: unknown) => {
			setState(current => controller.signal.aborted ? stopped(current) : failed(current, describe(error)));
		}).finally(() => {
			if (waiting.current === controller) {
				waiting.current = undefined;
			}
		});
	};

	useChatKeys(waiting, setState, state.exitCode === undefined);
	return {state, now, submit};
}

/** Ctrl+C stops waiting for a reply, or at the prompt leaves (exit 130); Ctrl+D at the prompt ends (exit 0). */
function useChatKeys(waiting: RefObject<AbortController | undefined>, setState: (update: (current: ChatViewState) => ChatViewState) => void, isActive: boolean): void {
	useInput((input, key) => {
		if (key.ctrl && input === 'c') {
			if (waiting.current === undefined) {
				setState(current => ended(current, 130));
			} else {
				waiting.current.abort();
			}

			return;
		}

		if (key.ctrl && input === 'd' && waiting.current === undefined) {
			setState(current => ended(current, 0));
		}
	}, {isActive});
}
