/**
 * Runs the whole CLI in-process (`runCli`, what `platform-tui` does after building its context),
 * with memory streams and an env of the test's own: help, unknown words and flags, parse errors,
 * error wording and exit codes without spawning a process.
 */
import {Readable} from 'node:stream';
import {runCli} from '../../source/cli/run-cli.js';
import {registry} from '../../source/commands/registry.js';
import {memoryStream, testEnv, type MemoryStream} from './run-command.js';

export type InProcessResult = {code: number; stdout: string; stderr: string};

/** `stdout`: a stream of the test's own, e.g. one that claims to be a terminal of some width. */
export async function runCliInProcess(argv: string[], options: {env?: Record<string, string | undefined>; stdin?: string; signal?: AbortSignal; stdout?: MemoryStream} = {}): Promise<InProcessResult> {
	// A plain readable of the given text: no listener of ours drains it before the command reads it.
	const stdin = Readable.from(options.stdin === undefined ? [] : [options.stdin]);
	const stdout = options.stdout ?? memoryStream();
	const stderr = memoryStream();
	const code = await runCli(registry, argv, {
		stdin,
		stdout,
		stderr,
		// CI keeps Ink off even if a stream claimed to be a TTY.
		env: testEnv({CI: 'true', ...options.env}),
		signal: options.signal ?? new AbortController().signal,
	});
	await new Promise(resolve => setImmediate(resolve));
	return {code, stdout: stdout.text(), stderr: stderr.text()};
}
