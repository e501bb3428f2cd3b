/**
 * The command seam (in the manner of GitHub CLI's Options + Factory). Each command file exports a
 * `Command<Options>`: its help and flags, a `parse` that turns the raw input into typed Options
 * (every flag value is validated here, once, with the shared validators of `validators.ts`), and
 * `run(options, deps)`. `deps` comes from `createDeps` (deps.ts), so a test runs a command
 * in-process with memory streams, an env of its own and the local platform.
 */
import type {CommandInput} from '../context.js';
import type {Deps} from './deps.js';
import type {FlagCompletion, FlagSpec} from './flag-spec.js';

export type {FlagCompletion, FlagRange, FlagSpec} from './flag-spec.js';

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
