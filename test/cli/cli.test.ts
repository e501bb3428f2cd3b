import {readFileSync, statSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {runCli} from '../support/cli.js';

const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {version: string};

describe('the built CLI', () => {
	it('--help lists every command with one line each and examples', async () => {
		const result = await runCli(['--help']);
		expect(result.code).toBe(0);
		for (const command of ['upload', 'serve', 'trigger', 'keys set', 'keys show', 'keys rotate', 'local', 'config list', 'config get', 'config set', 'config path', 'init']) {
			expect(result.stdout).toMatch(new RegExp(`^ {4}${command} +\\S`, 'm'));
		}

		expect(result.stdout).toContain('EXAMPLES');
		expect(result.stdout).toContain('--json');
		expect(result.stdout).toContain('--debug');
	});

	it('--version prints the package version', async () => {
		const result = await runCli(['--version']);
		expect(result.code).toBe(0);
		expect(result.stdout.trim()).toBe(packageJson.version);
	});

	// Issue 13.13: one line and the hint instead of the whole help.
	it('an unknown command prints one line and the usage hint, and exits 1', async () => {
		const result = await runCli(['frobnicate']);
		expect(result.code).toBe(1);
		expect(result.stderr).toContain('Unknown command "frobnicate".');
		expect(result.stderr).toContain('Run \'platform-tui --help\' for usage.');
	});

	// Issue 13.13: bare platform-tui prints the help to stdout and exits 0 (gh's habit).
	it('no command at all prints usage on stdout and exits 0', async () => {
		const result = await runCli([]);
		expect(result.code).toBe(0);
		expect(result.stdout).toContain('USAGE');
	});

	it('an unknown flag names it, points to the command usage and exits 1', async () => {
		const result = await runCli(['config', 'list', '--frobnicate']);
		expect(result.code).toBe(1);
		expect(result.stderr).toContain('Unknown flag --frobnicate.');
		expect(result.stderr).toContain('platform-tui config list');
	});

	it('<command> --help shows that command\'s usage and flags', async () => {
		const result = await runCli(['config', 'set', '--help']);
		expect(result.code).toBe(0);
		expect(result.stdout).toContain('$ platform-tui config set <name> <value>');
		expect(result.stdout).toContain('--stdin');
		expect(result.stdout).toContain('INHERITED FLAGS');
	});

	it('a command group without a subcommand prints its help on stdout and exits 0, like a bare platform-tui', async () => {
		const result = await runCli(['keys']);
		expect(result.code).toBe(0);
		expect(result.stdout).toContain('platform-tui keys <set|show|rotate>');
		expect(result.stderr).toBe('');
	});
});

describe('config commands', () => {
	it('set, get, list and path work together, with secrets masked and the file at mode 0600', async () => {
		expect((await runCli(['config', 'set', 'baseUrl', 'http://127.0.0.1:4010'])).code).toBe(0);
		expect((await runCli(['config', 'set', 'appId', 'app_42'])).code).toBe(0);
		const secret = await runCli(['config', 'set', 'endpointSecret', '--stdin'], {input: 'whsec_abcdefgh9876\n'});
		expect(secret.code).toBe(0);
		expect(secret.stdout).toContain('…9876');
		expect(secret.stdout).not.toContain('whsec_abcdefgh9876');

		const get = await runCli(['config', 'get', 'appId']);
		expect(get.stdout.trim()).toBe('app_42');
		const getSecret = await runCli(['config', 'get', 'endpointSecret']);
		expect(getSecret.stdout.trim()).toBe('…9876');

		const list = await runCli(['config', 'list'], {env: {PLATFORM_USER_ID: 'user_from_env'}});
		expect(list.code).toBe(0);
		expect(list.stdout).toMatch(/baseUrl\s+http:\/\/127\.0\.0\.1:4010\s+stored/);
		expect(list.stdout).toMatch(/userId\s+user_from_env\s+env/);
		expect(list.stdout).toMatch(/endpointSecret\s+…9876\s+stored/);
		expect(list.stdout).toMatch(/model\s+AZURE_GPT_4o_2024_1120\s+default/);
		expect(list.stdout).not.toContain('whsec_abcdefgh9876');

		const listJson = await runCli(['config', 'list', '--json', '--app-id', 'app_flag']);
		const rows = listJson.stdout.trim().split('\n').map(line => JSON.parse(line) as {name: string; value: string | null; source: string});
		expect(rows.find(row => row.name === 'appId')).toMatchObject({value: 'app_flag', source: 'flag'});

		const path = await runCli(['config', 'path']);
		expect(path.stdout.trim()).toBe(join(process.env.PLATFORM_TUI_CONFIG_DIR ?? '', 'config.json'));
		expect(statSync(path.stdout.trim()).mode & 0o777).toBe(0o600);
	});

	it('refuses the API key and other secrets from argv and points to the safe way', async () => {
		const key = await runCli(['config', 'set', 'apiKey', 'sk_live_do_not_log_me']);
		expect(key.code).toBe(1);
		expect(key.stderr).toContain('platform-tui keys set');
		expect(key.stderr).not.toContain('sk_live_do_not_log_me');
		const secret = await runCli(['config', 'set', 'endpointSecret', 'whsec_x']);
		expect(secret.code).toBe(1);
		expect(secret.stderr).toContain('--stdin');
	});

	it('rejects an unknown setting and a malformed base URL with one sentence, no stack', async () => {
		const unknown = await runCli(['config', 'set', 'colour', 'blue']);
		expect(unknown.code).toBe(1);
		expect(unknown.stderr).toContain('Unknown setting "colour"');
		expect(unknown.stderr).not.toMatch(/\n\s+at /);
		const bad = await runCli(['config', 'set', 'baseUrl', 'not a url']);
		expect(bad.code).toBe(1);
		expect(bad.stderr).toContain('baseUrl must be an http(s) address');
	});

	it('shows a stack trace only with --debug', async () => {
		const debug = await runCli(['config', 'set', 'colour', 'blue', '--debug']);
		expect(debug.code).toBe(1);
		expect(debug.stderr).toMatch(/\n\s+at /);
	});
});
