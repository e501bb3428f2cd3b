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

/** The ids a run touched, by kind: the last `--json` line lists them (docs/json.md). */
export type TouchedIds = {chatIds: string[]; contentIds: string[]; eventIds: string[]};

/** A `--json` record: an object with a `type` (the CLI declares each type and its fields). */
export type OutputRecord = {type: string} & Record<string, unknown>;

/**
 * The one writer of a run's stdout records. A command hands each record over once, with the plain
 * text it stands for: with --json the record is checked against its declaration and printed as one
 * NDJSON line, without it the text is printed. The CLI makes it (cli/output.ts, cli/json-writer.ts)
 * and ends the run through it with the `result` or `error` line.
 */
export type Output<R extends {type: string} = OutputRecord> = {
	/** True with --json: records are printed, plain text is not. */
	readonly json: boolean;
	/**
	 * Hands over one record. With --json: the record as one NDJSON line. Without: `plain` (written as
	 * it is, newline included; a function is called only then), or nothing when it is absent.
	 */
	print(record: R, plain?: string | (() => string | undefined)): void;
	/** Ids the run touched that no printed record names (a chat asked about before the run failed). */
	touched(ids: Partial<TouchedIds>): void;
	/**
	 * From now on collects what is printed and writes it together at most every `intervalMs` (serve
	 * under load: one write for many lines). Returns the function that writes the rest and stops it.
	 */
	coalesce(intervalMs: number): () => void;
};
