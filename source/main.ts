#!/usr/bin/env node
/**
 * The entry: builds the streams, environment and signal from process.* and hands argv and the
 * table of commands (commands/registry.ts) to `runCli` (cli/run-cli.ts), which does everything
 * else and returns the exit code.
 * Ctrl+C aborts the command (exit 130; a second Ctrl+C quits at once); SIGTERM aborts it too
 * (exit 143 unless the command finishes cleanly, as serve and local do when they drain). A reader
 * of stdout or stderr that goes away stops it quietly with 141 (cli/output.ts).
 */
// First: V8's heap policy is set before any other module of the program is evaluated.
import './heap-policy.js';
import process from 'node:process';
import {runCli} from './cli/run-cli.js';
import {registry} from './commands/registry.js';
import {settleColorEnv} from './terminal.js';

// Chalk (used by Ink) reads FORCE_COLOR: it is told what terminal.ts decides (NO_COLOR wins over everything).
settleColorEnv(process.env);

const controller = new AbortController();
let interrupts = 0;
const onSigint = () => {
	interrupts++;
	if (interrupts > 1) {
		process.exit(130);
	}

	controller.abort('SIGINT');
};

const onSigterm = () => {
	controller.abort('SIGTERM');
};

process.on('SIGINT', onSigint);
process.on('SIGTERM', onSigterm);
let code: number;
try {
	code = await runCli(registry, process.argv.slice(2), {
		stdin: process.stdin,
		stdout: process.stdout,
		stderr: process.stderr,
		env: process.env,
		signal: controller.signal,
	});
} finally {
	process.off('SIGINT', onSigint);
	process.off('SIGTERM', onSigterm);
}

/**
 * Resolves once everything written to `stream` so far has been handed to the OS: a reader on the
 * other end of a pipe that reads slowly gets all of it. A reader that went away (EPIPE) ends the wait.
 */
async function flushed(stream: NodeJS.WriteStream): Promise<void> {
	if (stream.destroyed || stream.writableLength === 0) {
		return;
	}

	return new Promise(resolve => {
		stream.once('error', () => {
			resolve();
		});
		stream.write('', () => {
			resolve();
		});
	});
}

// Exit once the output is flushed; open handles (keep-alive sockets) must not hold the process.
process.exitCode = code;
await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
process.exit(code);
