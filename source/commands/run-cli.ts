/**
 * The CLI's dispatcher, driven in-process by tests: finds the command, handles help, version and
 * unknown words or flags (with a did-you-mean), parses the flags, runs the command and words any
 * error. Returns the exit code: 0, 1 (usage mistake or failure), 130 (Ctrl+C), 143 (SIGTERM).
 * Only argv reading and help load up front; the deps, validators (zod) and error wording load
 * when a command runs, so `--version` and `--help` stay fast.
 */
import {isAbortError} from '../errors.js';
import {findCommand, parseFlags, positionals, unknownFlag} from './argv.js';
import {commandHelp, groupHelp, mainHelp} from './help.js';
import {sharedFlags, type LoadedCommand, type RegistryEntry} from './registry.js';
import type {CommandContext} from './types.js';

export type CliIo = Pick<CommandContext, 'stdin' | 'stdout' | 'stderr' | 'env' | 'signal'>;

export const exitCodes = {ok: 0, failure: 1, interrupted: 130, terminated: 143} as const;

const usageHint = 'Run \'platform-tui --help\' for usage.';

/** The codes of the mistakes the dispatcher itself catches, before any command runs. */
export const dispatchErrorCodes = {
	unknownCommand: 'unknown-command',
	unknownFlag: 'unknown-flag',
	commandLoadFailed: 'command-load-failed',
} as const;

function wantsFlag(argv: readonly string[], long: string, short?: string): boolean {
	const end = argv.indexOf('--');
	const flags = end === -1 ? argv : argv.slice(0, end);
	return flags.includes(long) || (short !== undefined && flags.includes(short));
}

/**
 * A mistake caught before a command runs: the sentence and the hint on stderr, and with --json the
 * same as one NDJSON error line on stdout (as every other error).
 */
function refuse(io: Pick<CliIo, 'stdout' | 'stderr'>, json: boolean, code: string, message: string, hint?: string): number {
	if (json) {
		io.stdout.write(`${JSON.stringify({type: 'error', code, message})}\n`);
	}

	io.stderr.write(`${message}\n${hint ? `${hint}\n` : ''}`);
	return exitCodes.failure;
}

function flagMistake(io: CliIo, json: boolean, unknown: {flag: string; suggestion?: string}, hint: string): number {
	const mean = unknown.suggestion ? ` Did you mean ${unknown.suggestion}?` : '';
	return refuse(io, json, dispatchErrorCodes.unknownFlag, `Unknown flag ${unknown.flag}.${mean}`, hint);
}

async function printVersion(io: CliIo): Promise<number> {
	const {version} = await import('../version.js');
	io.stdout.write(`${version}\n`);
	return exitCodes.ok;
}

function unknownCommand(io: CliIo, json: boolean, words: string, suggestion: string | undefined): number {
	const mean = suggestion ? ` Did you mean "${suggestion}"?` : '';
	return refuse(io, json, dispatchErrorCodes.unknownCommand, `Unknown command "${words}".${mean}`, usageHint);
}

/** Loads a command's module; a module that fails to load is one sentence on stderr. */
export async function loadCommand(entry: RegistryEntry, io: Pick<CliIo, 'stdout' | 'stderr'>, json = false): Promise<LoadedCommand | undefined> {
	try {
		const loaded = (await entry.load()).default as Partial<LoadedCommand> | undefined;
		if (typeof loaded?.parse !== 'function' || typeof loaded.run !== 'function') {
			throw new TypeError('its module exports no command');
		}

		return loaded as LoadedCommand;
	} catch (error) {
		const {errorMessage} = await import('../format/value.js');
		refuse(io, json, dispatchErrorCodes.commandLoadFailed, `Error: the "${entry.words.join(' ')}" command could not be loaded (${errorMessage(error)}); reinstall platform-tui, or run 'npm run build' in a checkout.`);
		return undefined;
	}
}

/** `platform-tui help [command words]`. */
async function help(words: string[], io: CliIo): Promise<number> {
	if (words.length === 0) {
		io.stdout.write(mainHelp());
		return exitCodes.ok;
	}

	const found = findCommand(words);
	if (found.kind === 'group') {
		io.stdout.write(groupHelp(found.group));
		return exitCodes.ok;
	}

	if (found.kind !== 'command') {
		return found.kind === 'unknown' ? unknownCommand(io, false, found.words, found.suggestion) : exitCodes.ok;
	}

	const loaded = await loadCommand(found.entry, io);
	if (!loaded) {
		return exitCodes.failure;
	}

	io.stdout.write(commandHelp(loaded));
	return exitCodes.ok;
}

/** The exit code for an error that ended a command. */
export function exitCodeFor(error: unknown, signal: AbortSignal): number {
	if (isAbortError(error) || signal.aborted) {
		return signal.reason === 'SIGTERM' ? exitCodes.terminated : exitCodes.interrupted;
	}

	const code = (error as {exitCode?: unknown} | undefined)?.exitCode;
	return typeof code === 'number' ? code : exitCodes.failure;
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
	const words = positionals(argv);
	if (words[0] === 'help') {
		return help(words.slice(1), io);
	}

	const json = wantsFlag(argv, '--json');
	const named = findCommand(argv);
	// A bare `platform-tui events` in a terminal opens the inspector; elsewhere it stays the group's help.
	const opensInspector = named.kind === 'group' && named.group === 'events' && Boolean(io.stdout.isTTY) && !io.env.CI && !json && !wantsFlag(argv, '--help', '-h');
	const at = argv.indexOf('events');
	const found = opensInspector ? findCommand([...argv.slice(0, at + 1), 'inspect', ...argv.slice(at + 1)]) : named;
	if (found.kind !== 'command') {
		if (found.kind === 'unknown') {
			return unknownCommand(io, json, found.words, found.suggestion);
		}

		// Before a command is named only the shared flags mean anything: `--jsn` or `-x` is a mistake.
		const unknown = unknownFlag(argv, sharedFlags);
		if (unknown) {
			return flagMistake(io, json, unknown, usageHint);
		}

		if (wantsFlag(argv, '--version', '-v')) {
			return printVersion(io);
		}

		// A bare `platform-tui` or `platform-tui keys` asks what there is: the help, on stdout, exit 0.
		io.stdout.write(found.kind === 'group' ? groupHelp(found.group) : mainHelp());
		return exitCodes.ok;
	}

	const {entry, rest} = found;
	const loaded = await loadCommand(entry, io, json);
	if (!loaded) {
		return exitCodes.failure;
	}

	const name = `platform-tui ${entry.words.join(' ')}`;
	const commandHint = `Run '${name} --help' for usage.`;
	const allFlags = {...sharedFlags, ...loaded.flags};
	const unknown = unknownFlag(rest, allFlags);
	if (unknown) {
		return flagMistake(io, json, unknown, commandHint);
	}

	const parsed = await parseFlags(rest, allFlags);
	if (parsed.flags.help === true) {
		io.stdout.write(commandHelp(loaded));
		return exitCodes.ok;
	}

	if (parsed.flags.version === true) {
		return printVersion(io);
	}

	const debug = parsed.flags.debug === true;
	const offersLocal = 'local' in loaded.flags;
	const context: CommandContext = {
		argv: parsed.input,
		flags: parsed.flags,
		env: io.env,
		json,
		debug,
		interactive: Boolean(io.stdout.isTTY) && !io.env.CI && !json,
		stdin: io.stdin,
		stdout: io.stdout,
		stderr: io.stderr,
		signal: io.signal,
	};
	try {
		const {createDeps} = await import('./deps.js');
		const options: unknown = loaded.parse(context);
		return await loaded.run(options, createDeps(context));
	} catch (error) {
		const code = exitCodeFor(error, io.signal);
		if (code === exitCodes.interrupted || code === exitCodes.terminated) {
			io.stderr.write('Cancelled.\n');
			return code;
		}

		const [{debugStack, describeError, joinText}, {UsageError}] = await Promise.all([import('./error-message.js'), import('./validators.js')]);
		const text = describeError(error, {offersLocal});
		const message = joinText(text);
		if (json) {
			io.stdout.write(`${JSON.stringify({type: 'error', code: text.code, message, ...(text.resume === undefined ? {} : {chatId: text.chatId, resume: text.resume})})}\n`);
		}

		const stack = debug ? debugStack(error) : undefined;
		const body = `${message}${stack ? `\n\n${stack}` : ''}`;
		io.stderr.write(error instanceof UsageError ? `${body}\n${commandHint}\n` : `Error: ${body}\n`);
		return code;
	}
}
