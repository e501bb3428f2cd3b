/**
 * The flag layer as a user meets it: one tokenizer that knows which flags take a value, global
 * flags before or after the command words, `--flag=value` for every flag (booleans included),
 * repeatable flags that keep every value, help wrapped to the terminal, and refusals that name
 * the rule with a value that passes.
 */
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {runCli} from '../../source/cli/run-cli.js';
import {tokenize} from '../../source/cli/tokenize.js';
import type {FlagSpec} from '../../source/cli/types.js';
import {registry} from '../../source/commands/registry.js';
import {memoryStream, testEnv} from '../support/run-command.js';
import {runCliInProcess as run} from '../support/run-cli.js';

const root = mkdtempSync(path.join(tmpdir(), 'platform-tui-flags-'));
const folder = path.join(root, 'docs');
mkdirSync(path.join(folder, 'drafts'), {recursive: true});
writeFileSync(path.join(folder, 'a.md'), 'Alpha.\n');
writeFileSync(path.join(folder, 'b.tmp'), 'Scratch.\n');
writeFileSync(path.join(folder, 'drafts', 'd.md'), 'Draft.\n');

afterAll(() => {
	rmSync(root, {recursive: true, force: true});
});

type Line = {type: string; upload?: Array<{name: string}>};

function planned(stdout: string): string[] {
	const lines = stdout.trim().split('\n').map(line => JSON.parse(line) as Line);
	return (lines.find(line => line.type === 'sync-planned')?.upload ?? []).map(file => file.name);
}

describe('repeatable flags', () => {
	it('keeps every --exclude, so the docs\' example leaves out drafts/ and *.tmp', async () => {
		const result = await run(['upload', folder, 'q', '--recursive', '--exclude', 'drafts/**', '--exclude', '*.tmp', '--dry-run', '--json']);
		expect(result.code).toBe(0);
		expect(planned(result.stdout)).toEqual(['a.md']);
	});

	it('reads --include=GLOB like --include GLOB', async () => {
		const result = await run(['upload', folder, 'q', '--recursive', '--include=**/*.md', '--exclude=drafts/**', '--dry-run', '--json']);
		expect(planned(result.stdout)).toEqual(['a.md']);
	});
});

describe('global flags anywhere on the line', () => {
	it('takes connection flags before the command words', async () => {
		const result = await run(['--base-url', 'http://127.0.0.1:9/', 'config', 'get', 'baseUrl']);
		expect(result.stderr).not.toContain('Unknown command');
		expect(result.code).toBe(0);
		expect(result.stdout.trim()).toBe('http://127.0.0.1:9/');
	});

	it('reads --data-dir X before, between and after the command words alike', async () => {
		const dataDir = path.join(root, 'no-journal');
		const lines = [
			['--data-dir', dataDir, 'events', 'list'],
			['events', '--data-dir', dataDir, 'list'],
			['events', 'list', '--data-dir', dataDir],
		];
		const results = await Promise.all(lines.map(async argv => run(argv)));
		for (const result of results) {
			expect(result.stderr).not.toContain('Unknown command');
			expect(result.stderr).toContain(dataDir);
			expect(result).toEqual(results[0]);
		}
	});
});

describe('--flag=value for every flag, booleans included', () => {
	it('--json=true sets JSON mode and --json=false leaves it off', async () => {
		const on = await run(['config', 'path', '--json=true']);
		expect(on.code).toBe(0);
		expect((JSON.parse(on.stdout.trim().split('\n').at(-1) ?? '') as {type: string}).type).toBeTypeOf('string');
		const off = await run(['config', 'path', '--json=false']);
		expect(off.code).toBe(0);
		expect(off.stdout.trim().startsWith('{')).toBe(false);
	});

	it('refuses --json=maybe with the rule and a value that passes', async () => {
		const result = await run(['config', 'path', '--json=maybe']);
		expect(result.code).toBe(1);
		expect(result.stderr).toContain('--json must be true or false (or given alone); got "maybe", e.g. --json=false.');
	});

	it('names a flag that ends the line without its value', async () => {
		const result = await run(['events', 'list', '--data-dir']);
		expect(result.code).toBe(1);
		expect(result.stderr).toContain('--data-dir needs a value, e.g. --data-dir DIR');
	});
});

describe('arguments that start with "-"', () => {
	it('says a prompt starting with "-" goes after "--" instead of printing the help', async () => {
		const result = await run(['upload', folder, '-what does it cost?']);
		expect(result.code).toBe(1);
		expect(result.stdout).toBe('');
		expect(result.stderr).not.toContain('USAGE');
		expect(result.stderr).toContain(`put arguments that start with "-" after "--", which ends the flags: platform-tui upload ${folder} -- "-what does it cost?"`);
	});

	it('takes it after "--"', async () => {
		const result = await run(['upload', folder, '--dry-run', '--json', '--', '-what does it cost?']);
		expect(result.code).toBe(0);
		expect(planned(result.stdout)).toEqual(['a.md', 'b.tmp']);
	});
});

describe('a flag read under an alias', () => {
	const specs = {dotenv: {type: 'string', aliases: ['envFile'], placeholder: 'PATH', description: 'A file'}} satisfies Record<string, FlagSpec>;

	it('--env-file PATH and --env-file=PATH read as the flag itself', () => {
		expect(tokenize(['--env-file', 'a.env'], specs)).toMatchObject({positionals: [], flags: {dotenv: 'a.env'}});
		expect(tokenize(['--env-file=a.env'], specs).flags).toEqual({dotenv: 'a.env'});
		expect(tokenize(['--env-file'], specs).problem).toEqual({kind: 'missing-value', flag: '--env-file', placeholder: 'PATH'});
		expect(tokenize(['--dotenvv'], specs).problem).toEqual({kind: 'unknown-flag', flag: '--dotenvv', suggestion: '--dotenv'});
	});

	it('keys rotate --help names --dotenv, not its alias Node claims', async () => {
		const result = await run(['keys', 'rotate', '--help']);
		expect(result.stdout).toContain('--dotenv PATH');
		expect(result.stdout).not.toContain('--env-file');
	});
});

describe('help wrapped to the terminal', () => {
	async function helpAt(columns: number): Promise<string> {
		const stdout = Object.assign(memoryStream(), {columns, isTTY: true});
		const stderr = memoryStream();
		const stdin = memoryStream();
		stdin.end();
		await runCli(registry, ['upload', '--help'], {stdin, stdout, stderr, env: testEnv({CI: 'true'}), signal: new AbortController().signal});
		return stdout.text();
	}

	it.each([60, 80, 120])('at %i columns no line is wider and no word is cut', async columns => {
		const text = await helpAt(columns);
		for (const line of text.split('\n').filter(line => !line.startsWith('    $ '))) {
			expect(line.length, line).toBeLessThanOrEqual(columns);
		}

		// Every word of the description stays whole.
		expect(text.replaceAll(/\s+/g, ' ')).toContain('wait for ingestion, ask the prompt and print the reply');
		expect(text).toContain('--exclude GLOB');
	});
});

describe('each note of a flag said once in its help', () => {
	it.each(['trigger', 'events replay', 'local'])('%s --help says "repeatable" and "env …" once per flag', async words => {
		const result = await run([...words.split(' '), '--help']);
		const text = result.stdout.replaceAll(/\s+/g, ' ');
		expect(text).not.toMatch(/repeatable\)? \(repeatable/);
		for (const env of text.match(/env [A-Z_]+/g) ?? []) {
			expect(text.split(env).length - 1, env).toBe(1);
		}
	});

	it('the renderer leaves out a note the description already gives', async () => {
		const {flagDescription} = await import('../../source/cli/help.js');
		expect(flagDescription({type: 'string', isMultiple: true, env: 'PLATFORM_TUI_DATA_DIR', description: 'Where it lives (env PLATFORM_TUI_DATA_DIR); repeatable'}))
			.toBe('Where it lives (env PLATFORM_TUI_DATA_DIR); repeatable');
		expect(flagDescription({type: 'string', isMultiple: true, env: 'PLATFORM_REDIS_URL', description: 'Read it'})).toBe('Read it (repeatable; env PLATFORM_REDIS_URL)');
	});
});

describe('refusals name the rule and a value that passes', () => {
	it('--if-older-than 59s names the one-minute floor', async () => {
		const result = await run(['keys', 'rotate', '--if-older-than', '59s']);
		expect(result.code).toBe(1);
		expect(result.stderr).toContain('--if-older-than must be a duration from 1m to 3650d, e.g. --if-older-than 90s; got "59s".');
	});

	it('an invalid glob is its own error naming the glob', async () => {
		const result = await run(['upload', folder, 'q', '--exclude', '[', '--dry-run']);
		expect(result.code).toBe(1);
		expect(result.stderr).toContain('--exclude "[" is not a valid glob');
		expect(result.stderr).not.toContain('no files');
	});

	it('a glob that matches nothing says so, not that the folder is empty', async () => {
		const result = await run(['upload', folder, 'q', '--include', '*.pdf', '--dry-run']);
		expect(result.code).toBe(1);
		expect(result.stderr).toContain(`None of the 2 files in ${folder} matches --include "*.pdf", so nothing was started`);
		const excluded = await run(['upload', folder, 'q', '--exclude', '*', '--dry-run']);
		expect(excluded.stderr).toContain(`All 2 files in ${folder} match --exclude "*", so nothing was started`);
		const both = await run(['upload', folder, 'q', '--include', '*.md', '--exclude', 'a.*', '--dry-run']);
		expect(both.stderr).toContain(`None of the 2 files in ${folder} matches --include "*.md" without also matching --exclude "a.*", so nothing was started`);
		expect(result.stderr).not.toContain('has no files');
	});

	it('events list --type foo is refused like --status bogus', async () => {
		const dataDir = path.join(root, 'no-journal');
		const type = await run(['events', 'list', '--type', 'foo', '--data-dir', dataDir]);
		expect(type.code).toBe(1);
		expect(type.stderr).toContain('--type must be user-message or external-module-chosen, or a full event name starting with platform., e.g. --type user-message; got "foo".');
		const status = await run(['events', 'list', '--status', 'bogus', '--data-dir', dataDir]);
		expect(status.code).toBe(1);
		expect(status.stderr).toMatch(/--status must be one of [^;]+, e\.g\. --status \S+; got "bogus"\./);
	});
});
