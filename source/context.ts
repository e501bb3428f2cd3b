/**
 * What one invocation of a command gets: its raw input, streams, environment and signal. It lives
 * below the CLI framework (cli/) and the screens (ui/), which both read it.
 */

/** The raw input of one invocation, after the shell split off the command words. */
export type CommandInput = {
	/** The words that named the command (the registry's), for its sentences; absent when a test calls `parse` itself. */
	words?: readonly string[];
	/** Positional arguments after the command words. */
	argv: string[];
	/** Parsed flags, camelCased (the shared flags included). Numbers stay strings until `parse` reads them. */
	flags: Record<string, unknown>;
	env: NodeJS.ProcessEnv;
};

/** The streams, environment and signal of one invocation: process.* in the CLI, memory streams in tests. */
export type CommandContext = CommandInput & {
	json: boolean;
	debug: boolean;
	/** True when Ink may run: stdout is a TTY, CI is unset and --json was not given. */
	interactive: boolean;
	stdin: NodeJS.ReadableStream & {isTTY?: boolean; setRawMode?: (mode: boolean) => unknown};
	stdout: NodeJS.WritableStream & {isTTY?: boolean; columns?: number; rows?: number};
	stderr: NodeJS.WritableStream & {isTTY?: boolean};
	/** Aborted on Ctrl+C (reason 'SIGINT') or SIGTERM (reason 'SIGTERM'). */
	signal: AbortSignal;
};
