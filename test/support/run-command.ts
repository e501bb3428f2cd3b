/**
 * Runs a command in-process, the way the CLI does after parsing argv: `parse` then
 * `run(options, createDeps(context))`, with memory streams and an env of the test's own.
 * A `UsageError` from parse comes back as exit code 1 with its sentence on stderr; any other
 * error also gives exit code 1, worded on stderr as the CLI words it.
 */
import {PassThrough, Readable} from 'node:stream';
import {createDeps, type Clock} from '../../source/cli/deps.js';
import {describeError, joinText} from '../../source/cli/error-message.js';
import {registry} from '../../source/commands/registry.js';
import type {AnyCommand, CommandContext} from '../../source/cli/types.js';
import {UsageError} from '../../source/cli/validators.js';
import {testTimersEnv} from './cli.js';
import {withTestDirs} from './env.js';

export type MemoryStream = PassThrough & {isTTY?: boolean; columns?: number; rows?: number; text(): string};

export function memoryStream(): MemoryStream {
	const stream = new PassThrough() as MemoryStream;
	let text = '';
	stream.on('data', (chunk: Buffer) => {
		text += chunk.toString('utf8');
	});
	stream.text = () => text;
	return stream;
}

export type RunCommandOptions = {
	/** The stdout stream, e.g. one that claims to be a terminal of some width. */
	stdout?: MemoryStream;
	argv?: string[];
	flags?: Record<string, unknown>;
	/** Added to an env that holds only the test's config and data dirs. */
	env?: Record<string, string | undefined>;
	/** Written to stdin, then stdin ends. */
	stdin?: string;
	signal?: AbortSignal;
	clock?: Clock;
	json?: boolean;
	debug?: boolean;
	/** The context's `interactive` (a terminal); default false. */
	interactive?: boolean;
};

export type RunCommandResult = {code: number; stdout: string; stderr: string; error?: unknown};

/** An env of the test's own: its config and data dirs, and the suite's test timers (test/support/cli.ts says what they shorten). */
export function testEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
	return withTestDirs({}, {...testTimersEnv, ...extra});
}

const wordsByCommand = new Map<AnyCommand, readonly string[]>();

/** The words the registry names `command` by, as the dispatcher hands them to it (a test hands the module itself). */
async function wordsOf(command: AnyCommand): Promise<readonly string[] | undefined> {
	if (wordsByCommand.size === 0) {
		for (const entry of registry) {
			wordsByCommand.set((await entry.load()).default, entry.words);
		}
	}

	return wordsByCommand.get(command);
}

/** Parses and runs `command`; errors thrown by run are returned (not rethrown) with code 1. */
export async function runCommand(command: AnyCommand, options: RunCommandOptions = {}): Promise<RunCommandResult> {
	// The command reads stdin itself: a plain readable stream of the given text (no listener of ours drains it).
	const stdin = Readable.from(options.stdin === undefined ? [] : [options.stdin]);
	const stdout = options.stdout ?? memoryStream();
	const stderr = memoryStream();
	const json = options.json ?? options.flags?.json === true;
	const words = await wordsOf(command);
	const context: CommandContext = {
		...(words === undefined ? {} : {words}),
		argv: options.argv ?? [],
		flags: {...options.flags, ...(json ? {json: true} : {})},
		env: testEnv(options.env),
		json,
		debug: options.debug ?? false,
		interactive: options.interactive ?? false,
		stdin,
		stdout,
		stderr,
		signal: options.signal ?? new AbortController().signal,
	};
	try {
		const parsed: unknown = command.parse(context);
		const code = await command.run(parsed, createDeps(context, options.clock ? {clock: options.clock} : {}));
		return {code, stdout: stdout.text(), stderr: stderr.text()};
	} catch (error) {
		// Worded as the CLI words it (error-message.ts): the usage sentence, else `Error: ` + sentence and next step.
		stderr.write(error instanceof UsageError ? `${error.message}\n` : `Error: ${joinText(describeError(error, {offersLocal: 'local' in command.flags}))}\n`);

		await new Promise(resolve => setImmediate(resolve));
		return {code: 1, stdout: stdout.text(), stderr: stderr.text(), error};
	}
}

/** Starts a command in-process with --json and lets the test read its output while it runs. */
export function startCommand(command: AnyCommand, options: {flags: Record<string, unknown>; env: Record<string, string | undefined>; signal: AbortSignal}) {
	const stdin = memoryStream();
	stdin.end();
	const stdout = memoryStream();
	const stderr = memoryStream();
	const context: CommandContext = {argv: [], flags: {...options.flags, json: true}, env: testEnv(options.env), json: true, debug: false, interactive: false, stdin, stdout, stderr, signal: options.signal};
	const done = (async () => command.run(command.parse(context), createDeps(context)))();
	return {stdout: () => stdout.text(), stderr: () => stderr.text(), done};
}
