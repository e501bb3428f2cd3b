/**
 * What a table of commands is: the words that name each, its one-line summary and the lazy import
 * of its module. The table itself is the commands' (commands/registry.ts); the entry hands it to
 * the dispatcher, which hands it to help and completion, so the framework never names a command.
 * A module loads only when its command runs (or its help is asked for), so `--version` stays fast.
 */
import type {AnyCommand, FlagSpec} from './types.js';

/** One command: the words that name it, e.g. ['keys', 'rotate'], its summary, and how to load its module. */
export type RegistryEntry = {
	readonly words: readonly string[];
	readonly summary: string;
	readonly load: () => Promise<{default: AnyCommand}>;
};

/** Every command, in the order help lists them. */
export type Registry = readonly RegistryEntry[];

/** The flags shown in help (those with a description), by name: what completion offers. */
export function describedFlagNames(flags: Record<string, FlagSpec>): string[] {
	return Object.entries(flags).filter(([, spec]) => spec.description !== undefined).map(([name]) => name);
}

/** The group words (`keys`, `config`, `events`). */
export function groups(registry: Registry): string[] {
	return [...new Set(registry.filter(entry => entry.words.length > 1).map(entry => entry.words[0] ?? ''))];
}
