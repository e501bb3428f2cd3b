/**
 * The CLI's dispatcher, driven in-process by tests: finds the command, handles help, version and
 * unknown words or flags (with a did-you-mean), parses the flags, runs the command and words any
 * error. Returns the exit code: 0, 1 (usage mistake or failure), 130 (Ctrl+C), 141 (the reader of
 * stdout or stderr went away: output.ts), 143 (SIGTERM).
 * Only argv reading and help load up front; the deps, validators (zod) and error wording load
 * when a command runs, so `--version` and `--help` stay fast.
 */
import {findCommand} from './argv.js';
import {globalFlags, sharedFlags} from './flags.js';
import {createPlainOutput, guardOutput, type RunOutput} from './output.js';
import {terminalColumns} from '../terminal.js';
import {commandHelp, groupHelp, mainHelp} from './help.js';
import type {Registry, RegistryEntry} from './registry.js';
import {cancelledText, exitCodeFor, exitCodes, RunStoppedError, stoppedCodes} from './stopped.js';
import {tokenize, type TokenProblem} from './tokenize.js';
import type {AnyCommand, CommandContext, LoadedCommand} from './types.js';
import type {Deps} from './deps.js';

export {exitCodeFor, exitCodes} from './stopped.js';

export type CliIo = Pick<CommandContext, 'stdin' | 'stdout' | 'stderr' | 'env' | 'signal'>;

const usageHint = 'Run \'platform-tui --help\' for usage.';

/** The codes of the mistakes the dispatcher itself catches, before any command runs. */
export const dispatchErrorCodes = {
	unknownCommand: 'unknown-command',
	unknownFlag: 'unknown-flag',
	argumentLooksLikeFlag: 'argument-looks-like-flag',
	flagValueMissing: 'flag-value-missing',
	flagInvalid: 'flag-invalid',
	commandLoadFailed: 'command-load-failed',
} as const;

/** The run's writer: with --json the envelope's (json-writer.ts, loaded only then), else the plain one. */
async function outputFor(io: Pick<CliIo, 'stdout'>, json: boolean): Promise<RunOutput> {
	return json ? (await import('./json-writer.js')).createJsonWriter(io.stdout) : createPlainOutput(io.stdout);
}

/**
 * A mistake caught before a command runs: the sentence and the hint on stderr, and through the
 * run's writer the end of the run (with --json its `error` line, as every other error).
 */
async function refuse(io: Pick<CliIo, 'stdout' | 'stderr'>, json: boolean, code: string, message: string, hint?: string): Promise<number> {
	(await outputFor(io, json)).error({code, message, next: hint ?? usageHint});
	io.stderr.write(`${message}\n${hint ? `${hint}\n` : ''}`);
	return exitCodes.failure;
}

/** The sentence for a mistake the tokenizer met, with a line that passes where there is one. */
function problemText(problem: TokenProblem, name: string, words: readonly string[]): {code: string; message: string} {
	switch (problem.kind) {
		case 'unknown-flag': {
			return {code: dispatchErrorCodes.unknownFlag, message: `Unknown flag ${problem.flag}.${problem.suggestion ? ` Did you mean ${problem.suggestion}?` : ''}`};
		}

		case 'not-a-flag': {
			const before = words.slice(0, words.indexOf(problem.token)).map(word => (/\s/.test(word) ? JSON.stringify(word) : word));
			const example = [name, ...before, '--', JSON.stringify(problem.token)].join(' ');
			return {code: dispatchErrorCodes.argumentLooksLikeFlag, message: `${JSON.stringify(problem.token)} starts with "-" but is not a flag; put arguments that start with "-" after "--", which ends the flags: ${example}`};
		}

		case 'missing-value': {
			return {code: dispatchErrorCodes.flagValueMissing, message: `${problem.flag} needs a value, e.g. ${problem.flag} ${problem.placeholder} (or ${problem.flag}=${problem.placeholder}).`};
		}

		case 'bad-boolean': {
			return {code: dispatchErrorCodes.flagInvalid, message: `${problem.flag} must be true or false (or given alone); got ${JSON.stringify(problem.value)}, e.g. ${problem.flag}=false.`};
		}
	}
}

async function tokenMistake(io: CliIo, json: boolean, problem: TokenProblem, name: string, words: readonly string[], hint: string): Promise<number> {
	const {code, message} = problemText(problem, name, words);
	return refuse(io, json, code, message, hint);
}

/**
 * `--version` / `-v`: the version on stdout. With --json it is the `version` command's run, so
 * its records are those of `platform-tui version --json` (the `version` line, then `result`).
 */
async function printVersion(registry: Registry, io: CliIo, json: boolean, flags: Record<string, unknown>): Promise<number> {
	const found = json ? findCommand(registry, ['version']) : undefined;
	if (found?.kind === 'command') {
		const loaded = await loadCommand(found.entry, io, json);
		return loaded ? runCommand(loaded, {io, input: {argv: [], flags: {...flags, version: false}}, json, commandHint: 'Run \'platform-tui version --help\' for usage.'}) : exitCodes.failure;
	}

	const {version} = await import('../version.js');
	io.stdout.write(`${version}\n`);
	return exitCodes.ok;
}

async function unknownCommand(io: CliIo, json: boolean, words: string, suggestion: string | undefined): Promise<number> {
	const mean = suggestion ? ` Did you mean "${suggestion}"?` : '';
	return refuse(io, json, dispatchErrorCodes.unknownCommand, `Unknown command "${words}".${mean}`, usageHint);
}

/** Loads a command's module; a module that fails to load is one sentence on stderr. */
export async function loadCommand(entry: RegistryEntry, io: Pick<CliIo, 'stdout' | 'stderr'>, json = false): Promise<LoadedCommand | undefined> {
	try {
		const loaded = (await entry.load()).default as Partial<AnyCommand> | undefined;
		if (typeof loaded?.parse !== 'function' || typeof loaded.run !== 'function') {
			throw new TypeError('its module exports no command');
		}

		// The words and the summary are the registry's: the module declares neither.
		return {...loaded as AnyCommand, name: [...entry.words], summary: entry.summary};
	} catch (error) {
		const {errorMessage} = await import('../format/value.js');
		await refuse(io, json, dispatchErrorCodes.commandLoadFailed, `Error: the "${entry.words.join(' ')}" command could not be loaded (${errorMessage(error)}); reinstall platform-tui, or run 'npm run build' in a checkout.`);
		return undefined;
	}
}

/**
 * Help on stdout, exit 0. With --json it is the envelope's: one `help` line holding the text (for
 * `command`: the words asked about, `help` for the main help), then the `result` line.
 */
async function printHelp(io: Pick<CliIo, 'stdout'>, json: boolean, command: string, text: string): Promise<number> {
	const output = await outputFor(io, json);
	output.print({type: 'help', command, text}, text);
	output.result(command, exitCodes.ok);
	return exitCodes.ok;
}

/**
 * The columns help is wrapped to: the terminal's when stdout is one; none (help's fixed width)
 * when it is not, or with --json, so piped help and what is made from it do not change with the window.
 */
function helpColumns(io: Pick<CliIo, 'stdout'>, json: boolean): number | undefined {
	return io.stdout.isTTY === true && !json ? terminalColumns(io.stdout) : undefined;
}

/** `platform-tui help [command words]`. */
async function help(registry: Registry, words: string[], io: CliIo, json: boolean): Promise<number> {
	if (words.length === 0) {
		return printHelp(io, json, 'help', mainHelp(registry, helpColumns(io, json)));
	}

	const found = findCommand(registry, words);
	if (found.kind === 'group') {
		return printHelp(io, json, found.group, groupHelp(registry, found.group, helpColumns(io, json)));
	}

	if (found.kind !== 'command') {
		return found.kind === 'unknown' ? unknownCommand(io, json, found.words, found.suggestion) : exitCodes.ok;
	}

	const loaded = await loadCommand(found.entry, io, json);
	if (!loaded) {
		return exitCodes.failure;
	}

	return printHelp(io, json, found.entry.words.join(' '), commandHelp(loaded, helpColumns(io, json)));
}

/**
 * Runs one command line, naming a command of `registry` (commands/registry.ts). A reader of stdout or stderr that goes away stops the run quietly with
 * 141 (output.ts); a run cancelled first keeps its 130 or 143.
 */
export async function runCli(registry: Registry, argv: string[], io: CliIo): Promise<number> {
	const output = guardOutput(io, io.signal);
	const code = await dispatch(registry, argv, {...io, signal: output.signal});
	await output.settled();
	return output.readerGone() ? exitCodes.readerGone : code;
}

async function dispatch(registry: Registry, argv: string[], io: CliIo): Promise<number> {
	const leading = tokenize(argv, globalFlags, {lenient: true});
	if (leading.positionals[0] === 'help') {
		return help(registry, leading.positionals.slice(1), io, leading.flags.json === true);
	}

	const json = leading.flags.json === true;
	const named = findCommand(registry, argv);
	// A bare `platform-tui events` in a terminal opens the inspector; elsewhere it stays the group's help.
	const opensInspector = named.kind === 'group' && named.group === 'events' && Boolean(io.stdout.isTTY) && !io.env.CI && !json && leading.flags.help !== true;
	const at = leading.positionalIndexes[0] ?? 0;
	const found = opensInspector ? findCommand(registry, [...argv.slice(0, at + 1), 'inspect', ...argv.slice(at + 1)]) : named;
	if (found.kind !== 'command') {
		if (found.kind === 'unknown') {
			return unknownCommand(io, json, found.words, found.suggestion);
		}

		// Before a command is named only the global flags mean anything: `--jsn` or `-x` is a mistake.
		const strict = tokenize(argv, globalFlags);
		if (strict.problem) {
			return tokenMistake(io, json, strict.problem, 'platform-tui', strict.positionals, usageHint);
		}

		if (strict.flags.version === true) {
			return printVersion(registry, io, json, strict.flags);
		}

		// A bare `platform-tui` or `platform-tui keys` asks what there is: the help, on stdout, exit 0.
		return found.kind === 'group' ? printHelp(io, json, found.group, groupHelp(registry, found.group, helpColumns(io, json))) : printHelp(io, json, 'help', mainHelp(registry, helpColumns(io, json)));
	}

	const {entry, rest} = found;
	const loaded = await loadCommand(entry, io, json);
	if (!loaded) {
		return exitCodes.failure;
	}

	const name = `platform-tui ${entry.words.join(' ')}`;
	const commandHint = `Run '${name} --help' for usage.`;
	const parsed = tokenize(rest, {...sharedFlags, ...loaded.flags});
	const parsedJson = parsed.flags.json === true;
	if (parsed.flags.help === true) {
		return printHelp(io, json || parsedJson, entry.words.join(' '), commandHelp(loaded, helpColumns(io, json || parsedJson)));
	}

	if (parsed.problem) {
		return tokenMistake(io, parsedJson, parsed.problem, name, parsed.positionals, commandHint);
	}

	if (parsed.flags.version === true) {
		return printVersion(registry, io, parsedJson, parsed.flags);
	}

	return runCommand(loaded, {io, input: {argv: parsed.positionals, flags: parsed.flags}, json: parsedJson, commandHint});
}

type Invocation = {io: CliIo; input: {argv: string[]; flags: Record<string, unknown>}; json: boolean; commandHint: string};

/** Parses and runs a found command; words any error it ends with. The run ends through its writer: with --json one `result` or `error` line (json-writer.ts). */
async function runCommand(loaded: LoadedCommand, {io, input, json, commandHint}: Invocation): Promise<number> {
	const debug = input.flags.debug === true;
	const offersLocal = 'local' in loaded.flags;
	const output = await outputFor(io, json);
	const context: CommandContext = {
		words: loaded.name,
		argv: input.argv,
		flags: input.flags,
		env: io.env,
		json,
		debug,
		interactive: Boolean(io.stdout.isTTY) && !io.env.CI && !json,
		stdin: io.stdin,
		stdout: io.stdout,
		stderr: io.stderr,
		signal: io.signal,
	};
	const command = loaded.name.join(' ');
	let deps: Deps | undefined;
	// The --json result and error lines name the profile the run used when it is not `default`,
	// as the run's store chose it: no second read of the config file.
	const profile = () => (json ? deps?.profile() ?? {} : {});
	try {
		const {createDeps} = await import('./deps.js');
		deps = createDeps(context, {output});
		const options: unknown = loaded.parse(context);
		const returned = await loaded.run(options, deps);
		// A command that stopped on the signal says 130; the signal's reason tells which stop it was.
		const code = stoppedCodes.has(returned) && io.signal.aborted ? exitCodeFor(undefined, io.signal) : returned;
		if (stoppedCodes.has(code)) {
			output.error({...cancelledText(code), ...profile()});
		} else {
			output.result(command, code, profile());
		}

		return code;
	} catch (error) {
		const code = exitCodeFor(error, io.signal);
		if (stoppedCodes.has(code)) {
			// A command that knew its chat when it stopped names it, as a failed upload does (stopped.ts).
			const stop = error instanceof RunStoppedError ? error.stop : undefined;
			output.error({...cancelledText(code, stop), ...profile()});
			// A reader that went away is answered by silence, as `git log | head` does.
			if (code !== exitCodes.readerGone) {
				io.stderr.write(`${stop?.sentence ?? 'Cancelled.'}\n`);
			}

			return code;
		}

		const [{debugStack, describeError, joinText, settingSources}, {UsageError}] = await Promise.all([import('./error-message.js'), import('./validators.js')]);
		// The sources come from the run's own read of the config file: the error reads it no second time.
		const text = describeError(error, {offersLocal, sources: deps === undefined ? {} : settingSources(deps)});
		const usage = error instanceof UsageError;
		// A stopped upload names its chat and how to resume it (error-message.ts reads UploadStoppedError).
		const resume = text.resume === undefined ? {} : {chatId: text.chatId, resume: text.resume};
		output.error({code: text.code, message: text.message, next: text.next ?? (usage ? commandHint : 'Run it again with --debug for the details.'), ...resume, ...profile()});
		const stack = debug ? debugStack(error) : undefined;
		const body = `${joinText(text)}${stack ? `\n\n${stack}` : ''}`;
		io.stderr.write(usage ? `${body}\n${commandHint}\n` : `Error: ${body}\n`);
		return code;
	}
}
