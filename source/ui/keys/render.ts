/** Ink for the keys commands, on the streams of the new command context. */
import {render, type Instance} from 'ink';
import type {ReactElement} from 'react';
import type {CommandContext} from '../../commands/types.js';

export function renderKeysApp(context: Pick<CommandContext, 'stdout' | 'stdin' | 'stderr'>, element: ReactElement, options: {maxFps?: number} = {}): Instance {
	return render(element, {
		stdout: context.stdout as NodeJS.WriteStream,
		stdin: context.stdin as NodeJS.ReadStream,
		stderr: context.stderr as NodeJS.WriteStream,
		exitOnCtrlC: false,
		patchConsole: false,
		maxFps: options.maxFps ?? 15,
	});
}
