/**
 * The shell completion scripts, generated from the command registry and each command's flags, so
 * a command or flag added anywhere completes with no list to keep by hand. Event ids — the
 * argument of a command declared `complete: 'event-id'` (events show, replay, export) and the value
 * of a flag so declared (trigger --from-event) — come at completion time from `platform-tui
 * completion --event-ids`, which reads the journal (or Redis) named by the words typed so far;
 * profile names (--profile, local --save-profile, `config use`'s argument: `complete: 'profile'`)
 * from `platform-tui completion --profiles`, which reads the config file.
 */
import {bashScript} from './completion/bash.js';
import {fishScript} from './completion/fish.js';
import type {CompletionShell, CompletionSpec} from './completion/spec.js';
import {zshScript} from './completion/zsh.js';

export {completionShells, type CompletionCommand, type CompletionShell, type CompletionSpec} from './completion/spec.js';

/** The completion script for a shell. */
export function completionScript(shell: CompletionShell, spec: CompletionSpec): string {
	switch (shell) {
		case 'bash': {
			return bashScript(spec);
		}

		case 'zsh': {
			return zshScript(spec);
		}

		case 'fish': {
			return fishScript(spec);
		}
	}
}
