import {render, type Instance} from 'ink';
import type {ReactElement} from 'react';
import type {CommandContext} from '../commands/types.js';

/**
 * Renders an Ink app for an interactive command. Ctrl+C is left to the app (exitOnCtrlC false) so
 * it can cancel cleanly; live rows re-render at most `maxFps` times a second.
 */
export function renderApp(context: Pick<CommandContext, 'stdout' | 'stdin' | 'stderr'>, element: ReactElement, options: {maxFps?: number} = {}): Instance {
	return render(element, {
		stdout: context.stdout,
		stdin: context.stdin,
		stderr: context.stderr,
		exitOnCtrlC: false,
		patchConsole: false,
		maxFps: options.maxFps ?? 15,
	});
}
