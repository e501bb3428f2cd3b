/**
 * `config get` of a setting that is not set names the command that stores it, and that command
 * works: `keys set` for the API key, `config set endpointSecret --stdin` for the endpoint secret,
 * `config set NAME <value>` for the rest. Every setting is tried by running what the hint says.
 */
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {settingNames, settingSpecs, type SettingName} from '../../source/config/settings.js';
import {runCliInProcess} from '../support/run-cli.js';

const root = mkdtempSync(path.join(tmpdir(), 'platform-tui-config-get-'));
afterAll(() => {
	rmSync(root, {recursive: true, force: true});
});

/** A value each setting accepts. */
function goodValue(name: SettingName): string {
	return settingSpecs[name].example ?? `${name}_value_1234`;
}

/** The command words of a hint such as `platform-tui config set baseUrl <value>`, with the value filled in (or read from stdin). */
function hinted(hint: string, value: string): {argv: string[]; stdin?: string} {
	const words = hint.split(' ').slice(1);
	const at = words.indexOf('<value>');
	if (at !== -1) {
		return {argv: words.with(at, value)};
	}

	return {argv: words, stdin: value};
}

describe('config get of a setting that is not set', () => {
	for (const name of settingNames) {
		it(`${name}: names its variable and a command that stores it`, async () => {
			const spec = settingSpecs[name];
			// No default to fall back on: the model's default makes it always set.
			if (spec.defaultValue !== undefined) {
				return;
			}

			const env = {PLATFORM_TUI_CONFIG_DIR: path.join(root, name), [spec.env]: undefined};
			const get = await runCliInProcess(['config', 'get', name], {env});
			expect(get.code).toBe(1);
			expect(get.stderr).toContain(`${name} is not set; set ${spec.env} or store it with \``);
			const hint = /`([^`]+)`/.exec(get.stderr)?.[1] ?? '';
			expect(hint).toMatch(/^platform-tui /);
			const value = goodValue(name);
			const {argv, stdin} = hinted(hint, value);
			const stored = await runCliInProcess(argv, {env, ...(stdin === undefined ? {} : {stdin})});
			expect(stored.code, `${hint}: ${stored.stderr}`).toBe(0);
			const after = await runCliInProcess(['config', 'get', name], {env});
			expect(after.code, after.stderr).toBe(0);
			expect(after.stdout).toBe(`${spec.secret ? `…${value.slice(-4)}` : value}\n`);
		});
	}

	it('apiKey is stored with keys set and endpointSecret with config set --stdin', async () => {
		const env = {PLATFORM_TUI_CONFIG_DIR: path.join(root, 'secrets'), PLATFORM_API_KEY: undefined, PLATFORM_ENDPOINT_SECRET: undefined};
		expect((await runCliInProcess(['config', 'get', 'apiKey'], {env})).stderr).toContain('store it with `platform-tui keys set`');
		expect((await runCliInProcess(['config', 'get', 'endpointSecret'], {env})).stderr).toContain('store it with `platform-tui config set endpointSecret --stdin`');
	});
});
