/** Shared pieces of command definitions (types.ts holds the contract itself). */
import type {Command, CommandInput} from './types.js';
import {UsageError} from './validators.js';

/**
 * Refuses positional arguments for a command that takes none, with the one sentence
 * `keys show takes no arguments; usage: platform-tui keys show [--json]`.
 */
export function noArguments(input: CommandInput, command: Pick<Command, 'usage'>): void {
	if (input.argv.length > 0) {
		throw new UsageError('too-many-arguments', `${input.words?.join(' ') ?? 'This command'} takes no arguments; usage: ${command.usage}`);
	}
}
