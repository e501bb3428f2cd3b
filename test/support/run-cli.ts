/**
 * Runs the whole CLI in-process (`runCli`, what `platform-tui` does after building its context),
 * with memory streams and an env of the test's own: help, unknown words and flags, parse errors,
 * error wording and exit codes without spawning a process.
 */
import {mkdtempSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {Readable} from 'node:stream';
import {runCli} from '../../source/cli/run-cli.js';
import {registry} from '../../source/commands/registry.js';
import {memoryStream, testEnv, type MemoryStream} from './run-command.js';

export type InProcessResult = {code: number; stdout: string; stderr: string};

/** `stdout`: a memory stream of the test's own, to watch the lines while the run goes on, or one that claims to be a terminal of some width. */
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

/**
 * A config folder of its own holding the profile `name` (its base URL stored, as `local
 * --save-profile` leaves one), and the variables that make a run use it.
 */
export async function savedProfileEnv(name: string, baseUrl: string): Promise<Record<string, string>> {
	const env = {PLATFORM_TUI_CONFIG_DIR: mkdtempSync(path.join(tmpdir(), 'platform-tui-profile-'))};
	const saved = await runCliInProcess(['config', 'set', '--profile', name, 'baseUrl', baseUrl], {env});
	if (saved.code !== 0) {
		throw new Error(`config set --profile ${name} failed: ${saved.stderr}`);
	}

	return {...env, PLATFORM_PROFILE: name};
}
