import {describe, expect, it} from 'vitest';
import {CancelledError, UserError} from '../../source/errors.js';
import {exitCodeFor, exitCodes, loadCommand} from '../../source/cli/run-cli.js';
import {memoryStream} from '../support/run-command.js';
import {runCliInProcess as run} from '../support/run-cli.js';

describe('runCli: help', () => {
	it('bare platform-tui prints the help to stdout and exits 0', async () => {
		const result = await run([]);
		expect(result.code).toBe(0);
		expect(result.stderr).toBe('');
		expect(result.stdout).toContain('USAGE');
		for (const command of ['upload', 'serve', 'trigger', 'events list', 'events show', 'events replay', 'keys rotate', 'init']) {
			expect(result.stdout).toMatch(new RegExp(`^ {4}${command} +\\S`, 'm'));
		}
	});

	it('help <command words> shows that command, its own FLAGS, then INHERITED FLAGS', async () => {
		const result = await run(['help', 'keys', 'rotate']);
		expect(result.code).toBe(0);
		expect(result.stdout).toContain('$ platform-tui keys rotate');
		const flags = result.stdout.indexOf('  FLAGS\n');
		const inherited = result.stdout.indexOf('  INHERITED FLAGS\n');
		expect(flags).toBeGreaterThan(-1);
		expect(inherited).toBeGreaterThan(flags);
		expect(result.stdout.slice(flags, inherited)).toContain('--yes');
		expect(result.stdout.slice(flags, inherited)).not.toContain('--base-url');
		expect(result.stdout.slice(inherited)).toContain('--base-url URL');
		expect(result.stdout.slice(inherited)).toContain('--json');
	});

	it('help, help <group> and <command> --help agree', async () => {
		expect((await run(['help'])).stdout).toBe((await run([])).stdout);
		expect((await run(['--debug', 'help', 'init'])).stdout).toContain('$ platform-tui init');
		const group = await run(['help', 'keys']);
		expect(group.code).toBe(0);
		expect(group.stdout).toContain('platform-tui keys <set|show|rotate>');
		expect((await run(['config', 'set', '--help'])).stdout).toBe((await run(['help', 'config', 'set'])).stdout);
	});

	it('--version prints the version', async () => {
		const result = await run(['--version']);
		expect(result.code).toBe(0);
		expect(result.stdout).toMatch(/^\d+\.\d+\.\d+/);
	});

	it('--version and -v with --json print the records of version --json', async () => {
		const records = await run(['--json', 'version']);
		expect(records.stdout).toMatch(/^\{"type":"version",.*\n\{"type":"result","command":"version","exitCode":0,/);
		for (const argv of [['--json', '--version'], ['--json', '-v'], ['-v', '--json'], ['upload', '--version', '--json']]) {
			const result = await run(argv);
			expect(result.code, argv.join(' ')).toBe(0);
			expect(result.stdout, argv.join(' ')).toBe(records.stdout);
			expect(result.stderr, argv.join(' ')).toBe('');
		}
	});
});

describe('runCli: unknown words and flags', () => {
	it('an unknown command prints one line with a suggestion and the hint, exit 1', async () => {
		const result = await run(['uplaod', './docs', 'question']);
		expect(result.code).toBe(1);
		expect(result.stdout).toBe('');
		expect(result.stderr).toBe('Unknown command "uplaod". Did you mean "upload"?\nRun \'platform-tui --help\' for usage.\n');
	});

	it('suggests within a group and for a subcommand named alone', async () => {
		expect((await run(['keys', 'rotat'])).stderr).toContain('Unknown command "keys rotat". Did you mean "keys rotate"?');
		expect((await run(['rotate'])).stderr).toContain('Did you mean "keys rotate"?');
		const far = await run(['frobnicate']);
		expect(far.stderr).toBe('Unknown command "frobnicate".\nRun \'platform-tui --help\' for usage.\n');
		expect((await run(['help', 'uplaod'])).stderr).toContain('Did you mean "upload"?');
	});

	it('an unknown flag prints one line with a suggestion and the command hint, exit 1', async () => {
		const result = await run(['upload', './docs', 'q', '--concurency', '4']);
		expect(result.code).toBe(1);
		expect(result.stderr).toBe('Unknown flag --concurency. Did you mean --concurrency?\nRun \'platform-tui upload --help\' for usage.\n');
		expect((await run(['config', 'list', '--bsae-url', 'x'])).stderr).toContain('Did you mean --base-url?');
	});
});

describe('runCli: errors', () => {
	it('--concurrency abc and --concurrency 0 read alike', async () => {
		const abc = await run(['upload', './docs', 'q', '--local', '--concurrency', 'abc']);
		const zero = await run(['upload', './docs', 'q', '--local', '--concurrency', '0']);
		expect(abc.code).toBe(1);
		expect(zero.code).toBe(1);
		const shape = /--concurrency must be [^;]+; got "[^"]+"\./;
		expect(abc.stderr).toMatch(shape);
		expect(zero.stderr).toMatch(shape);
		expect(abc.stderr).toContain('got "abc"');
		expect(zero.stderr).toContain('got "0"');
	});

	it('missing settings end with the next step: init, or --local', async () => {
		const result = await run(['upload', './docs', 'What is this?']);
		expect(result.code).toBe(1);
		expect(result.stderr).toMatch(/needs \d+ settings that are not set/);
		expect(result.stderr.trimEnd()).toMatch(/Run 'platform-tui init', or pass --local to try without an account\.$/);
		expect(result.stderr).not.toMatch(/\n\s+at /);
	});

	it('--json also prints the error as one NDJSON line', async () => {
		const result = await run(['config', 'get', 'colour', '--json']);
		expect(result.code).toBe(1);
		const line = JSON.parse(result.stdout.trim()) as {type: string; code: string; message: string};
		expect(line.type).toBe('error');
		expect(typeof line.code).toBe('string');
		expect(line.message).toContain('colour');
		expect(result.stderr).toContain('colour');
	});

	it('a stack only with --debug', async () => {
		const plain = await run(['config', 'set', 'colour', 'blue']);
		expect(plain.code).toBe(1);
		expect(plain.stderr).not.toMatch(/\n\s+at /);
		const debug = await run(['config', 'set', 'colour', 'blue', '--debug']);
		expect(debug.code).toBe(1);
		expect(debug.stderr).toMatch(/\n\s+at /);
	});
});

describe('runCli: init and exit codes', () => {
	// Moved here from the built-CLI tests (cli.test.ts).
	it('init without a terminal refuses and names the environment variables', async () => {
		const result = await run(['init']);
		expect(result.code).toBe(1);
		for (const name of ['PLATFORM_BASE_URL', 'PLATFORM_API_KEY', 'PLATFORM_APP_ID', 'PLATFORM_USER_ID', 'PLATFORM_COMPANY_ID', 'PLATFORM_ASSISTANT_ID']) {
			expect(result.stderr).toContain(name);
		}

		expect(result.stderr.trim().split('\n')).toHaveLength(1);
	});

	it('Ctrl+C ends with 130, SIGTERM with 143, a failure with 1 or its own code', () => {
		const interrupted = new AbortController();
		interrupted.abort('SIGINT');
		const terminated = new AbortController();
		terminated.abort('SIGTERM');
		const running = new AbortController().signal;
		expect(exitCodeFor(new CancelledError(), running)).toBe(exitCodes.interrupted);
		expect(exitCodeFor(new Error('aborted'), interrupted.signal)).toBe(130);
		expect(exitCodeFor(new CancelledError(), terminated.signal)).toBe(143);
		expect(exitCodeFor(new Error('boom'), running)).toBe(1);
		expect(exitCodeFor(new UserError('partly-done', 'partly', {exitCode: 2}), running)).toBe(2);
	});

	it('a command whose module fails to load is one sentence', async () => {
		const stderr = memoryStream();
		const loaded = await loadCommand({words: ['events', 'list'], summary: '', load: () => Promise.reject(new Error('Cannot find module \'./events/list.js\''))}, {stdout: memoryStream(), stderr});
		await new Promise(resolve => setImmediate(resolve));
		expect(loaded).toBeUndefined();
		expect(stderr.text()).toMatch(/^Error: the "events list" command could not be loaded \(Cannot find module '.\/events\/list.js'\); [^\n]+\.\n$/);
	});
});
