/** The old command contract, kept while commands move to `types.ts` (Command + parse + run(options, deps)). Removed once every command has moved. */

export type FlagSpec = {
	type: 'string' | 'boolean' | 'number';
	shortFlag?: string;
	default?: string | boolean | number;
	isMultiple?: boolean;
	/** Shown in the command's --help; a flag without one is hidden. */
	description?: string;
	/** Placeholder shown in help, e.g. `N` for `--port N`. */
	placeholder?: string;
};

export type CommandContext = {
	/** Positional arguments after the command words. */
	argv: string[];
	/** Parsed flags, camelCased (global flags included). */
	flags: Record<string, unknown>;
	json: boolean;
	debug: boolean;
	/** True when Ink may run: stdout is a TTY, CI is unset and --json was not given. */
	interactive: boolean;
	stdin: NodeJS.ReadStream;
	stdout: NodeJS.WriteStream;
	stderr: NodeJS.WriteStream;
	env: NodeJS.ProcessEnv;
	/** Aborted on Ctrl+C (reason 'SIGINT') or SIGTERM (reason 'SIGTERM'). */
	signal: AbortSignal;
};

export type CommandModule = {
	usage: string;
	description: string;
	flags: Record<string, FlagSpec>;
	examples?: string[];
	/** Returns the exit code. Throwing prints one clear sentence and exits 1. */
	run(context: CommandContext): Promise<number>;
};
