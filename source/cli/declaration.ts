/**
 * A command's declaration: the words that name it, its one-line summary and how to load it. Each
 * command has one, beside its module (`<command>.command.ts`); the registry is the list of them,
 * so the names live once and loading a command's module waits until it runs.
 */
import type {AnyCommand} from './types.js';

export type CommandDeclaration = {
	/** The words that name the command, e.g. ['keys', 'rotate']. */
	readonly words: readonly string[];
	readonly summary: string;
	readonly load: () => Promise<{default: AnyCommand}>;
};

export function declareCommand(declaration: CommandDeclaration): CommandDeclaration {
	return declaration;
}

/** The words and summary a command module spreads into its definition, from its declaration. */
export function commandInfo(declaration: CommandDeclaration): {name: string[]; summary: string} {
	return {name: [...declaration.words], summary: declaration.summary};
}
