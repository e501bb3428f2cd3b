import {render, type Instance} from 'ink';
import {createElement, type ComponentType, type ReactElement} from 'react';
import type {CommandContext} from '../context.js';
import {LiveTerminal} from './live-terminal.js';

/**
 * Ink types its streams as process streams; a command's context holds those, or test streams
 * shaped alike (Ink only uses their stream methods and isTTY/columns/rows).
 */
function inkStreams(context: Pick<CommandContext, 'stdout' | 'stdin' | 'stderr'>): {stdout: NodeJS.WriteStream; stdin: NodeJS.ReadStream; stderr: NodeJS.WriteStream} {
	return context as unknown as {stdout: NodeJS.WriteStream; stdin: NodeJS.ReadStream; stderr: NodeJS.WriteStream};
}

/**
 * Renders an Ink app for an interactive command. Ctrl+C is left to the app (exitOnCtrlC false) so
 * it can cancel cleanly; live rows re-render at most `maxFps` times a second. On a terminal Ink
 * writes through a LiveTerminal, which keeps the scrollback intact when the window is narrowed.
 */
export function renderApp(context: Pick<CommandContext, 'stdout' | 'stdin' | 'stderr'>, element: ReactElement, options: {maxFps?: number; hideTyping?: boolean} = {}): Instance {
	const {stdout, stdin, stderr} = inkStreams(context);
	const live = stdout.isTTY ? new LiveTerminal(stdout) : undefined;
	// For a prompt that reads secrets: the terminal stops echoing before the first frame shows. Ink
	// turns echo off only once its input hook has run, after that frame, so a key pasted as soon as
	// the prompt appears would otherwise be echoed in the clear. Keys typed meanwhile wait unread.
	const hidden = options.hideTyping === true && stdin.isTTY && typeof stdin.setRawMode === 'function';
	if (hidden) {
		stdin.setRawMode(true);
	}

	const instance = render(element, {
		stdout: (live as unknown as NodeJS.WriteStream | undefined) ?? stdout,
		stdin,
		stderr,
		exitOnCtrlC: false,
		patchConsole: false,
		maxFps: options.maxFps ?? 15,
	});
	if (live || hidden) {
		const release = () => {
			live?.dispose();
			if (hidden) {
				stdin.setRawMode(false);
			}
		};

		void instance.waitUntilExit().then(release, release);
	}

	return instance;
}

/**
 * renderApp for a command module, with the component and its props instead of JSX: JSX in the
 * command's own module would load React with it, where a run without a terminal needs neither
 * React nor Ink (the command imports this module only for its screen).
 */
export function renderComponent<Props extends object>(context: Pick<CommandContext, 'stdout' | 'stdin' | 'stderr'>, component: ComponentType<Props>, props: Props, options: {maxFps?: number; hideTyping?: boolean} = {}): Instance {
	return renderApp(context, createElement(component, props), options);
}

/**
 * Waits for an Ink app to exit. When the command's signal aborts first (Ctrl+C, SIGTERM),
 * `onAbort` runs and the app is unmounted, so the wait always ends.
 */
export async function waitForApp(instance: Instance, signal: AbortSignal, onAbort?: () => void): Promise<void> {
	const abort = () => {
		onAbort?.();
		instance.unmount();
	};

	signal.addEventListener('abort', abort, {once: true});
	try {
		await instance.waitUntilExit();
	} finally {
		signal.removeEventListener('abort', abort);
	}
}
