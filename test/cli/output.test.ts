/** Output a script can rely on, and mistakes that are no longer silent (in-process runs of the CLI). */
import {mkdtempSync, writeFileSync} from 'node:fs';
import {createServer} from 'node:net';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {beforeAll, describe, expect, it} from 'vitest';
import listCommand from '../../source/commands/events/list.js';
import showCommand from '../../source/commands/events/show.js';
import keysSet from '../../source/commands/keys/set.js';
import {formatTable} from '../../source/format/table.js';
import {openJournal} from '../../source/receiver/journal/index.js';
import {newEvent, tempDataDir} from '../receiver/journal/helpers.js';
import {runCliInProcess} from '../support/run-cli.js';
import {memoryStream, runCommand} from '../support/run-command.js';

let dataDir: string;

beforeAll(async () => {
	dataDir = tempDataDir();
	const journal = await openJournal({directory: dataDir});
	const now = Date.now();
	await journal.accept(newEvent({id: 'evt_user000000000000000000000001', event: 'platform.chat.user-message.created', status: 'logged', body: '{"id":"evt_user000000000000000000000001","payload":{"text":"hi"}}', receivedAt: new Date(now - 2000).toISOString()}));
	await journal.accept(newEvent({id: 'evt_chosen00000000000000000000001', event: 'platform.chat.external-module.chosen', status: 'ignored', body: 'not json at all', receivedAt: new Date(now - 1000).toISOString()}));
	await journal.close();
});

describe('mistakes before a command runs', () => {
	it('an unknown command with --json prints a JSON error too', async () => {
		const result = await runCliInProcess(['uplaod', '--json']);
		expect(result.code).toBe(1);
		expect(JSON.parse(result.stdout)).toEqual({type: 'error', code: 'unknown-command', message: 'Unknown command "uplaod". Did you mean "upload"?', next: 'Run \'platform-tui --help\' for usage.', chatIds: [], contentIds: [], eventIds: []});
		expect(result.stderr).toBe('Unknown command "uplaod". Did you mean "upload"?\nRun \'platform-tui --help\' for usage.\n');
	});

	it('an unknown top-level flag gets one line and a suggestion, exit 1', async () => {
		const jsn = await runCliInProcess(['--jsn']);
		expect(jsn.code).toBe(1);
		expect(jsn.stdout).toBe('');
		expect(jsn.stderr).toBe('Unknown flag --jsn. Did you mean --json?\nRun \'platform-tui --help\' for usage.\n');
		const short = await runCliInProcess(['-x']);
		expect(short.code).toBe(1);
		expect(short.stderr.split('\n')[0]).toBe('Unknown flag -x.');
		const asJson = await runCliInProcess(['keys', '--jsn', '--json']);
		expect(JSON.parse(asJson.stdout)).toMatchObject({type: 'error', code: 'unknown-flag'});
	});

	it('a bare group prints its help on stdout and exits 0', async () => {
		const result = await runCliInProcess(['keys']);
		expect(result.code).toBe(0);
		expect(result.stdout).toContain('platform-tui keys <set|show|rotate>');
		expect(result.stderr).toBe('');
	});

	it('version prints the same as --version', async () => {
		const command = await runCliInProcess(['version']);
		const flag = await runCliInProcess(['--version']);
		expect(command.code).toBe(0);
		expect(command.stdout).toMatch(/^\d+\.\d+\.\d+/);
		expect(command.stdout).toBe(flag.stdout);
	});
});

describe('upload checks its folder first', () => {
	it('a missing folder fails before the local platform starts, and -- lets a prompt begin with -', async () => {
		const missing = path.join(tmpdir(), 'platform-tui-no-such-folder');
		const result = await runCliInProcess(['upload', '--local', missing, '--', '-what is this?']);
		expect(result.code).toBe(1);
		expect(result.stderr).toBe(`Error: The folder ${missing} does not exist, so nothing was started. Pass the folder whose files should be uploaded.\n`);
		expect(result.stdout).toBe('');
	});

	it('an empty folder says it has no files', async () => {
		const empty = mkdtempSync(path.join(tmpdir(), 'platform-tui-empty-'));
		writeFileSync(path.join(empty, '.hidden'), 'x');
		const result = await runCliInProcess(['upload', '--local', empty, 'q', '--json']);
		expect(result.code).toBe(1);
		expect(JSON.parse(result.stdout)).toMatchObject({type: 'error', code: 'folder-empty', message: expect.stringContaining(`The folder ${empty} has no files to upload`) as unknown});
		expect(result.stderr).not.toContain('File not found');
	});

	it('an unreachable platform fails once: one retry sequence, the space tried only once', async () => {
		const closed = createServer();
		const port = await new Promise<number>(resolve => {
			closed.listen(0, '127.0.0.1', () => {
				resolve((closed.address() as {port: number}).port);
			});
		});
		await new Promise(resolve => closed.close(resolve));
		const folder = mkdtempSync(path.join(tmpdir(), 'platform-tui-docs-'));
		writeFileSync(path.join(folder, 'a.txt'), 'a');
		const env = {PLATFORM_BASE_URL: `http://127.0.0.1:${port}`, PLATFORM_API_KEY: 'sk_test_0000', PLATFORM_APP_ID: 'app', PLATFORM_USER_ID: 'user', PLATFORM_COMPANY_ID: 'company', PLATFORM_ASSISTANT_ID: 'space'};
		const result = await runCliInProcess(['upload', folder, 'q'], {env});
		expect(result.code).toBe(1);
		expect(result.stderr.match(/^Retrying GET \/space/gm) ?? []).toHaveLength(0);
		expect(result.stderr.match(/^Retrying POST \/space\/chat/gm)?.length).toBeGreaterThan(0);
		expect(result.stderr.match(/^Error: /gm)).toHaveLength(1);
		expect(result.stderr).toContain('Create chat (POST /space/chat) could not reach');
	});
});

describe('events', () => {
	it('a directory without a journal is refused', async () => {
		const result = await runCliInProcess(['events', 'list', '--data-dir', path.join(tmpdir(), 'platform-tui-typo')]);
		expect(result.code).toBe(1);
		expect(result.stderr).toContain('There is no event journal in');
	});

	it('--type takes trigger\'s names as well as the full event names; a user message is "logged"', async () => {
		for (const type of ['user-message', 'user-message.created', 'platform.chat.user-message.created']) {
			const result = await runCommand(listCommand, {flags: {dataDir, type, json: true}});
			expect(result.stdout.trim().split('\n').map(line => (JSON.parse(line) as {id: string; status: string}))).toEqual([expect.objectContaining({id: 'evt_user000000000000000000000001', status: 'logged'})]);
		}

		const chosen = await runCommand(listCommand, {flags: {dataDir, type: 'external-module-chosen', json: true}});
		expect((JSON.parse(chosen.stdout.trim()) as {id: string}).id).toBe('evt_chosen00000000000000000000001');
	});

	it('show --json gives the body as JSON, and as text only when it is not JSON', async () => {
		const user = await runCommand(showCommand, {argv: ['evt_user000000000000000000000001'], flags: {dataDir}, json: true});
		expect((JSON.parse(user.stdout) as {body: unknown}).body).toEqual({id: 'evt_user000000000000000000000001', payload: {text: 'hi'}});
		const chosen = await runCommand(showCommand, {argv: ['evt_chosen00000000000000000000001'], flags: {dataDir}, json: true});
		expect((JSON.parse(chosen.stdout) as {body: unknown}).body).toBe('not json at all');
	});

	it('list fits a terminal\'s width, cutting the widest column with …; piped it is tab-separated and whole', async () => {
		const stdout = Object.assign(memoryStream(), {isTTY: true, columns: 60});
		const onTerminal = await runCommand(listCommand, {flags: {dataDir}, stdout});
		const lines = onTerminal.stdout.trim().split('\n');
		expect(lines[0]).toMatch(/^TIME\s+ID\s+TYPE/);
		for (const line of lines.slice(0, -1)) {
			expect(line.length).toBeLessThanOrEqual(60);
		}

		expect(onTerminal.stdout).toContain('…');
		expect(lines.at(-1)).toMatch(/^2 events shown of 2/);
		const piped = await runCommand(listCommand, {flags: {dataDir}});
		expect(piped.stdout).toContain('\tevt_chosen00000000000000000000001\texternal-module.chosen\tignored\t');
		expect(piped.stdout).not.toContain('…');
		expect(piped.stderr).toMatch(/^2 events shown of 2/);
	});
});

describe('formatTable', () => {
	it('cuts the widest column first and keeps the others whole', () => {
		const lines = formatTable(['A', 'B'], [['short', 'a very long cell that does not fit']], 20);
		// The cut ends at a word's end: no space is left before the `…`.
		expect(lines).toEqual(['A      B', 'short  a very long…']);
		expect(formatTable(['A', 'B'], [['x\ty', 'z']], undefined)).toEqual(['x y\tz']);
	});
});

describe('secrets and keys', () => {
	it('trigger --secret and local --endpoint-secret are refused, naming the environment and --secret-file', async () => {
		for (const argv of [['trigger', 'user-message', '--secret', 's'], ['local', '--endpoint-secret', 's']]) {
			const result = await runCliInProcess(argv);
			expect(result.code).toBe(1);
			expect(result.stderr).toContain('a secret on the command line stays in shell history');
			expect(result.stderr).toContain('PLATFORM_ENDPOINT_SECRET, or pass --secret-file PATH');
		}
	});

	it('keys show --json names the stored key whenever the source is the stored one', async () => {
		const env = {PLATFORM_TUI_CONFIG_DIR: mkdtempSync(path.join(tmpdir(), 'platform-tui-config-'))};
		expect((await runCommand(keysSet, {stdin: 'sk_stored_key_ABCD', env})).code).toBe(0);
		const shown = JSON.parse((await runCliInProcess(['keys', 'show', '--json'], {env})).stdout.split('\n')[0] ?? '') as Record<string, unknown>;
		expect(shown).toMatchObject({key: '…ABCD', source: 'stored', storedKey: '…ABCD'});
	});
});

describe('completion', () => {
	it('generates scripts from the registry: every command, subcommand and flag', async () => {
		for (const shell of ['bash', 'zsh', 'fish']) {
			const result = await runCliInProcess(['completion', shell]);
			expect(result.code).toBe(0);
			for (const word of ['upload', 'serve', 'events', 'replay', 'rotate', 'completion', 'keep-going', 'concurrency', 'completion --event-ids --']) {
				expect(result.stdout).toContain(word);
			}
		}

		const unknown = await runCliInProcess(['completion', 'tcsh']);
		expect(unknown.code).toBe(1);
		expect(unknown.stderr).toContain('Unknown shell "tcsh"');
	});

	it('--event-ids lists the stored ids of the journal the typed words name, and nothing when there is none', async () => {
		const ids = await runCliInProcess(['completion', '--event-ids', '--', 'events', 'show', '--data-dir', dataDir]);
		expect(ids.code).toBe(0);
		expect(ids.stdout.trim().split('\n').sort()).toEqual(['evt_chosen00000000000000000000001', 'evt_user000000000000000000000001']);
		const none = await runCliInProcess(['completion', '--event-ids', '--', 'events', 'show', '--data-dir', path.join(tmpdir(), 'platform-tui-typo')]);
		expect(none).toMatchObject({code: 0, stdout: '', stderr: ''});
	});
});

describe('streams: results on stdout, diagnostics on stderr when piped', () => {
	it('events export --output leaves stdout empty (the file is the result) and confirms on stderr', async () => {
		const file = path.join(mkdtempSync(path.join(tmpdir(), 'platform-tui-export-')), 'event.json');
		const result = await runCliInProcess(['events', 'export', 'evt_user000000000000000000000001', '--data-dir', dataDir, '--output', file]);
		expect(result.code).toBe(0);
		expect(result.stdout).toBe('');
		expect(result.stderr).toMatch(/^Wrote the body of evt_user000000000000000000000001 \(\d+ bytes\) to .+event\.json\n$/);
		// Without --output the body is the result, on stdout alone.
		const body = await runCliInProcess(['events', 'export', 'evt_user000000000000000000000001', '--data-dir', dataDir]);
		expect(body.stdout).toBe('{"id":"evt_user000000000000000000000001","payload":{"text":"hi"}}\n');
		expect(body.stderr).toBe('');
	});
});
