/**
 * `runCommand` with real piped input: the shared runner's stdin is a memory stream whose own
 * reader drains it before a command can read it, so commands that read stdin (keys set,
 * config set --stdin) get a plain readable here.
 */
import {Readable} from 'node:stream';
import {createDeps} from '../../source/commands/deps.js';
import {describeError, joinText} from '../../source/commands/error-message.js';
import type {AnyCommand, CommandContext} from '../../source/commands/types.js';
import {memoryStream, testEnv, type RunCommandResult} from '../support/run-command.js';

export async function runWithStdin(command: AnyCommand, options: {input: string; argv?: string[]; flags?: Record<string, unknown>; env?: Record<string, string | undefined>; json?: boolean}): Promise<RunCommandResult> {
	const stdout = memoryStream();
	const stderr = memoryStream();
	const json = options.json ?? false;
	const context: CommandContext = {
		argv: options.argv ?? [],
		flags: {...options.flags, ...(json ? {json: true} : {})},
		env: testEnv(options.env),
		json,
		debug: false,
		interactive: false,
		stdin: Readable.from([options.input]),
		stdout,
		stderr,
		signal: new AbortController().signal,
	};
	try {
		const code = await command.run(command.parse(context), createDeps(context));
		return {code, stdout: stdout.text(), stderr: stderr.text()};
	} catch (error) {
		stderr.write(`Error: ${joinText(describeError(error))}\n`);
		await new Promise(resolve => setImmediate(resolve));
		return {code: 1, stdout: stdout.text(), stderr: stderr.text(), error};
	}
}
