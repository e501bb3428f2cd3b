/**
 * `platform-tui … | head -1` as the shell runs it: the built CLI's stdout is a pipe whose reader
 * has already gone, so its first write fails with EPIPE. The run ends quietly with 141 (the status
 * `git log | head` leaves), no stack trace, in --json and plain output. The pipe is made with no
 * reader before the CLI starts (a FIFO opened for reading and writing, then its reading end
 * closed), so the write fails every time rather than when a reader happens to be slow.
 */
import {execFileSync, spawn} from 'node:child_process';
import {closeSync, constants, mkdtempSync, openSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {beforeAll, describe, expect, it} from 'vitest';
import {openJournal} from '../../source/receiver/journal/index.js';
import {newEvent, tempDataDir} from '../receiver/journal/helpers.js';
import {childEnv, cliPath} from '../support/cli.js';

/** A write end of a pipe that has no reader. */
function pipeWithoutReader(): number {
	const fifo = path.join(mkdtempSync(path.join(tmpdir(), 'platform-tui-fifo-')), 'out');
	execFileSync('mkfifo', [fifo]);
	// Opening for reading and writing does not block on Linux; the write end then opens at once.
	const reader = openSync(fifo, constants.O_RDWR);
	const writer = openSync(fifo, constants.O_WRONLY);
	closeSync(reader);
	return writer;
}

async function runIntoClosedPipe(args: string[], env: Record<string, string>): Promise<{code: number | null; stderr: string}> {
	const writer = pipeWithoutReader();
	const child = spawn(process.execPath, [cliPath, ...args], {env: childEnv(env), stdio: ['ignore', writer, 'pipe']});
	closeSync(writer);
	let stderr = '';
	const errors = child.stdio[2];
	errors?.setEncoding('utf8');
	errors?.on('data', (chunk: string) => {
		stderr += chunk;
	});
	const code = await new Promise<number | null>((resolve, reject) => {
		child.on('error', reject);
		child.on('close', resolve);
	});
	return {code, stderr};
}

let dataDir: string;

beforeAll(async () => {
	dataDir = tempDataDir();
	const journal = await openJournal({directory: dataDir});
	await journal.accept(newEvent());
	await journal.close();
});

describe('the built CLI writing into a pipe whose reader left', () => {
	it('version --json, config list --json, events list --json and events list end quietly with 141', async () => {
		const commands = [['version', '--json'], ['config', 'list', '--json'], ['events', 'list', '--json'], ['events', 'list']];
		const results = await Promise.all(commands.map(async args => runIntoClosedPipe(args, {PLATFORM_TUI_DATA_DIR: dataDir})));
		for (const [index, result] of results.entries()) {
			const name = commands[index]?.join(' ');
			expect(result.code, `${name}: ${result.stderr}`).toBe(141);
			expect(result.stderr, name).not.toMatch(/EPIPE|Unhandled|\n\s+at /);
		}
	});
});
