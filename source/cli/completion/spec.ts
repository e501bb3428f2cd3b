/** What a completion script is generated from (the registry's commands and flags), and the pieces every shell's script shares. */
import {kebab} from '../kebab.js';

export type CompletionShell = 'bash' | 'zsh' | 'fish';

export const completionShells: readonly CompletionShell[] = ['bash', 'zsh', 'fish'];

export type CompletionCommand = {
	/** e.g. ['events', 'show'] */
	words: readonly string[];
	summary: string;
	/** The described (visible) flags, camelCase, own and shared. */
	flags: readonly string[];
	/** The flags that take a value, camelCase, and their aliases: the word after one is that value, not a command word. */
	valueFlags: readonly string[];
	/** Its argument is a stored event id. */
	eventIdArgument?: boolean;
	/** The flags whose value is a stored event id, camelCase. */
	eventIdFlags?: readonly string[];
	/** Its argument is a synced chat's id (`chat`). */
	chatIdArgument?: boolean;
	/** The flags whose value is a synced chat's id (`--chat`), camelCase. */
	chatIdFlags?: readonly string[];
	/** Its argument is a profile of the config file (`config use`). */
	profileArgument?: boolean;
	/** The flags whose value is a profile name, camelCase. */
	profileFlags?: readonly string[];
};

export type CompletionSpec = {
	commands: readonly CompletionCommand[];
	/** The flags a bare `platform-tui` takes. */
	topFlags: readonly string[];
};

export const program = 'platform-tui';

/** The flags some command's `pick` names, as a case pattern (`--data-dir|--redis`); one that matches no flag when none. */
function flagPattern(spec: CompletionSpec, pick: (command: CompletionCommand) => readonly string[] | undefined): string {
	const names = [...new Set(spec.commands.flatMap(command => pick(command) ?? []))].sort();
	return names.length === 0 ? '--no-such-flag' : names.map(name => `--${kebab(name)}`).join('|');
}

/** The names of the commands whose argument is a stored event id (`events show`). */
export function eventIdCommands(spec: CompletionSpec): string[] {
	return spec.commands.filter(command => command.eventIdArgument).map(command => command.words.join(' '));
}

/** Every flag whose value is an event id, as a case pattern. */
export function eventIdFlagPattern(spec: CompletionSpec): string {
	return flagPattern(spec, command => command.eventIdFlags);
}

export const idsCommand = (words: string) => `${program} completion --event-ids -- ${words} 2>/dev/null`;

/** Every flag whose value is a synced chat's id, as a case pattern. */
export function chatIdFlagPattern(spec: CompletionSpec): string {
	return flagPattern(spec, command => command.chatIdFlags);
}

/** The commands whose argument is a synced chat's id (`chat`). */
export function chatIdCommands(spec: CompletionSpec): CompletionCommand[] {
	return spec.commands.filter(command => command.chatIdArgument);
}

/** Prints the ids of the chats this machine synced (the upload manifests). */
export const chatIdsCommand = `${program} completion --chat-ids 2>/dev/null`;

export const profilesCommand = `${program} completion --profiles 2>/dev/null`;

/** Every flag whose value is a profile name, as a case pattern. */
export function profileFlagPattern(spec: CompletionSpec): string {
	return flagPattern(spec, command => command.profileFlags);
}

/** The names of the commands whose argument is a profile (`config use`). */
export function profileCommands(spec: CompletionSpec): string[] {
	return spec.commands.filter(command => command.profileArgument).map(command => command.words.join(' '));
}

export function flagWords(flags: readonly string[]): string {
	return flags.map(flag => `--${kebab(flag)}`).join(' ');
}

/** First words: commands of one word, group names, and `help`. */
export function firstWords(spec: CompletionSpec): string[] {
	return [...new Set([...spec.commands.map(command => command.words[0] ?? ''), 'help'])];
}

export function subcommands(spec: CompletionSpec, group: string): string[] {
	return spec.commands.filter(command => command.words.length > 1 && command.words[0] === group).map(command => command.words[1] ?? '');
}

export function groups(spec: CompletionSpec): string[] {
	return [...new Set(spec.commands.filter(command => command.words.length > 1).map(command => command.words[0] ?? ''))];
}

/** Every flag that takes a value in some command, as a case pattern (`--data-dir|--redis`). */
export function valueFlagPattern(spec: CompletionSpec): string {
	return flagPattern(spec, command => command.valueFlags);
}

export function quote(text: string): string {
	return `'${text.replaceAll('\'', '\'\\\'\'')}'`;
}
