/**
 * A reader that goes away (`platform-tui … | head -1`): every write to the stream fails with EPIPE,
 * as a pipe whose reader exited does. The run stops quietly with 141, in plain and --json output,
 * on stdout and on stderr, and no 'error' is left unheard (vitest fails a test on one).
 */
import {Readable, Writable} from 'node:stream';
import {beforeAll, describe, expect, it} from 'vitest';
import {exitCodes, runCli} from '../../source/cli/run-cli.js';
import {registry} from '../../source/commands/registry.js';
import {openJournal} from '../../source/receiver/journal/index.js';
import {newEvent, tempDataDir} from '../receiver/journal/helpers.js';
import {memoryStream, testEnv} from '../support/run-command.js';

/** A stream whose reader left: each write fails with EPIPE and the stream is destroyed, as Node's pipe does. */
function closedPipe(): Writable & {writes: number} {
	const stream = new Writable({
		write(_chunk, _encoding, callback) {
			stream.writes++;
			callback(Object.assign(new Error('write EPIPE'), {code: 'EPIPE', errno: -32, syscall: 'write'}));
		},
	}) as Writable & {writes: number};
	stream.writes = 0;
	return stream;
}

type Streams = {stdout?: Writable; stderr?: Writable; signal?: AbortSignal};

async function run(argv: string[], streams: Streams, env: Record<string, string> = {}) {
	const stdout = streams.stdout ?? memoryStream();
	const stderr = streams.stderr ?? memoryStream();
	const code = await runCli(registry, argv, {stdin: Readable.from([]), stdout, stderr, env: testEnv({CI: 'true', ...env}), signal: streams.signal ?? new AbortController().signal});
	// Errors Node emits a tick after the last write must find a listener too.
	await new Promise(resolve => setImmediate(resolve));
	return {code, stdout, stderr};
}

let dataDir: string;

beforeAll(async () => {
	dataDir = tempDataDir();
	const journal = await openJournal({directory: dataDir});
	for (let index = 0; index < 30; index++) {
		await journal.accept(newEvent());
	}

	await journal.close();
});

describe('a reader of stdout that went away', () => {
	it.each([
		['version', '--json'],
		['config', 'list', '--json'],
		['events', 'list', '--json'],
		['config', 'list'],
		['events', 'list'],
		['help'],
		['--version'],
	].map(argv => [argv.join(' '), argv] as const))('%s ends quietly with 141', async (_name, argv) => {
		const stderr = memoryStream();
		const stdout = closedPipe();
		const result = await run(argv, {stdout, stderr}, {PLATFORM_TUI_DATA_DIR: dataDir});
		expect(result.code).toBe(exitCodes.readerGone);
		expect(stdout.writes).toBeGreaterThan(0);
		// No error and no stack: at most the command's own summary line (config list's file, events list's count).
		expect(stderr.text()).not.toMatch(/error|EPIPE|\n\s+at /i);
		expect(stderr.text().split('\n').length).toBeLessThanOrEqual(2);
	});

	it('a reader of stderr that went away ends the run the same way', async () => {
		const stderr = closedPipe();
		const result = await run(['events', 'show', 'evt_none'], {stderr}, {PLATFORM_TUI_DATA_DIR: dataDir});
		expect(stderr.writes).toBeGreaterThan(0);
		expect(result.code).toBe(exitCodes.readerGone);
	});

	it('a run cancelled first keeps its own exit code when the pipe closes after it', async () => {
		const controller = new AbortController();
		controller.abort('SIGINT');
		const stdout = closedPipe();
		const result = await run(['local', '--port', '0', '--json'], {stdout, signal: controller.signal});
		expect(stdout.writes).toBeGreaterThan(0);
		expect(result.code).not.toBe(exitCodes.readerGone);
	});

	it('a long-running command stops when its reader leaves', async () => {
		// `local` runs until it is stopped: the closed stdout is what stops it.
		const stdout = closedPipe();
		const result = await run(['local', '--port', '0'], {stdout});
		expect(result.code).toBe(exitCodes.readerGone);
	});
});
