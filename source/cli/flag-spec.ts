/**
 * One flag's declaration: its type, default, environment variable, help, completion and range. Parsing,
 * help, completion and docs/flags.md all read it (flags.ts holds the shared ones).
 */
export type FlagSpec = {
	type: 'string' | 'boolean' | 'number';
	shortFlag?: string;
	/**
	 * Other long names the flag is also read under, camel-cased like the flag's own (`envFile` for
	 * `--env-file`). Help, completion's flag lists and docs/flags.md show only the flag's own name.
	 */
	aliases?: readonly string[];
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
