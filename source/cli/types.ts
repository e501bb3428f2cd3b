/**
 * The command seam (in the manner of GitHub CLI's Options + Factory). Each command file exports a
 * `Command<Options>`: its help and flags, a `parse` that turns the raw input into typed Options
 * (every flag value is validated here, once, with the shared validators of `validators.ts`), and
 * `run(options, deps)`. `deps` comes from `createDeps` (deps.ts), so a test runs a command
 * in-process with memory streams, an env of its own and the local platform.
 */
import type {CommandInput} from '../context.js';
import type {Deps} from './deps.js';

export type FlagSpec = {
	type: 'string' | 'boolean' | 'number';
	shortFlag?: string;
	default?: string | boolean | number;
	isMultiple?: boolean;
	/** Shown in the command's --help; a flag without one is hidden. */
	description?: string;
	/** Placeholder shown in help, e.g. `N` for `--port N`. */
	placeholder?: string;
	/** The environment variable read when the flag is absent (shown in help and docs/flags.md). */
	env?: string;
	/** What the shell offers for the value: files, folders, stored event ids, synced chat ids, the config file's profiles, or a fixed set of words. */
	complete?: FlagCompletion;
	/** The values accepted; a value outside is refused with the rule and an example (flag-values.ts). */
	range?: FlagRange;
};

/**
 * What a flag accepts. `int` and `number` read as numbers; `seconds` (a number of seconds, fractions
 * allowed) and `duration` (`90s`, `7d`) read as milliseconds; `example` is the passing value a refusal
 * shows when the flag has no default.
 */
export type FlagRange =
	| {kind: 'int'; min: number; max: number; example?: number}
	| {kind: 'number'; min: number; max: number; unit?: string; aboveMin?: boolean; example: number}
	| {kind: 'seconds'; min?: number; max: number; allowZero?: boolean; example?: number}
	| {kind: 'duration'; min: number; max: number}
	| {kind: 'url'; protocols: readonly string[]}
	| {kind: 'choice'; choices: readonly string[]}
	/** Any text as typed, empty included (not trimmed). */
	| {kind: 'text'}
	/** Any other rule: the test a (trimmed) value must pass, the rule's words and a value that passes. */
	| {kind: 'check'; test: (value: string) => boolean; rule: string; example: string; normalize?: (value: string) => string};

export type FlagCompletion = 'file' | 'folder' | 'event-id' | 'chat-id' | 'profile' | readonly string[];

export type {CommandContext, CommandInput} from '../context.js';

/** A command module's default export. Its words and summary are the registry's (registry.ts). */
export type Command<Options = unknown> = {
	usage: string;
	description: string;
	flags: Record<string, FlagSpec>;
	/** What the shell offers for the command's argument (e.g. stored event ids for `events show`). */
	complete?: FlagCompletion;
	examples?: string[];
	/** Validates the input into typed options; throws `UsageError` (validators.ts) with the one sentence. */
	parse(input: CommandInput): Options;
	/** Returns the exit code. Throwing prints one clear sentence (error-message.ts) and exits 1. */
	run(options: Options, deps: Deps): Promise<number>;
};

/** Lets the registry hold commands of different option types. */
export type AnyCommand = Command<any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the registry is heterogeneous by design; each command is typed where it is defined

/** A command as the dispatcher runs it: its module, with the words that name it and its summary from the registry. */
export type LoadedCommand = AnyCommand & {
	/** The words that name it, e.g. ['keys', 'rotate']. */
	name: string[];
	summary: string;
};
