/**
 * A setting that holds a value that cannot be used is named with where it came from, and its advice
 * is about that setting: what kind of value it takes, a value that passes, and how to give it one
 * (docs/configuration.md). One table over every setting: each that can be refused has advice of its
 * own, never another setting's.
 */
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {describeError} from '../../source/cli/error-message.js';
import {settingAdvice} from '../../source/cli/messages/config.js';
import {SettingInvalidError} from '../../source/config/errors.js';
import {settingNames, settingProblem, settingSpecs, type SettingName, type SettingSource} from '../../source/config/settings.js';
import {runCliInProcess} from '../support/run-cli.js';

/** Values some setting may refuse: every setting is tried with each. */
const candidates = ['soon', 'not a url', 'ftp://example.com', 'redis://127.0.0.1', '1s', '59s', '0', '-1', 'x'];

/** Each setting with the values it refuses. */
const refusing = settingNames
	.map(name => ({name, bad: candidates.filter(value => settingProblem(name, value) !== undefined)}))
	.filter(({bad}) => bad.length > 0);

function advised(name: SettingName, source: SettingSource, value: string) {
	const spec = settingSpecs[name];
	const error = new SettingInvalidError({name, source, env: spec.env, ...(spec.flag ? {flag: spec.flag} : {}), value, expected: settingProblem(name, value) ?? ''});
	return describeError(error);
}

/** How the advice names where the value came from. */
function origin(name: SettingName, source: SettingSource): string {
	const spec = settingSpecs[name];
	return source === 'env' ? spec.env : source === 'flag' ? `--${spec.flag ?? ''}` : `platform-tui config set ${name}`;
}

describe('the advice on a setting that cannot be used', () => {
	it('covers the settings that can be refused: the base URL and the key-age policy', () => {
		expect(refusing.map(({name}) => name)).toEqual(['baseUrl', 'keyMaxAge']);
	});

	for (const {name, bad} of refusing) {
		const spec = settingSpecs[name];
		const sources: SettingSource[] = spec.flag ? ['flag', 'env', 'stored'] : ['env', 'stored'];
		const others = settingNames.filter(other => other !== name);
		it(`${name} has advice of its own, naming where the value came from (${sources.join(', ')})`, () => {
			expect(settingAdvice[name], `${name} needs its own entry in settingAdvice`).toBeDefined();
			for (const value of bad) {
				for (const source of sources) {
					const {code, message, next = ''} = advised(name, source, value);
					expect(code).toBe('setting-invalid');
					expect(message).toContain(JSON.stringify(value));
					expect(next).toContain(origin(name, source));
					expect(next).toContain(settingAdvice[name]?.kind);
					if (spec.example !== undefined) {
						expect(next).toContain(spec.example);
					}

					for (const other of others) {
						const theirs = settingSpecs[other];
						expect(next).not.toContain(theirs.env);
						if (theirs.example !== undefined) {
							expect(next).not.toContain(theirs.example);
						}

						const advice = settingAdvice[other];
						if (advice !== undefined) {
							expect(next).not.toContain(advice.meaning);
						}
					}
				}
			}
		});
	}
});

describe('the refusal as printed', () => {
	const root = mkdtempSync(path.join(tmpdir(), 'platform-tui-setting-invalid-'));
	const env = {PLATFORM_TUI_CONFIG_DIR: path.join(root, 'config'), PLATFORM_API_KEY: 'sk_test_key_0000'};
	afterAll(() => {
		rmSync(root, {recursive: true, force: true});
	});

	it('a bad PLATFORM_KEY_MAX_AGE is advised a duration, not an address, in plain and --json output', async () => {
		const plain = await runCliInProcess(['keys', 'show'], {env: {...env, PLATFORM_KEY_MAX_AGE: 'soon'}});
		expect(plain.code).toBe(1);
		expect(plain.stderr).toBe('Error: PLATFORM_KEY_MAX_AGE is not a duration of at least a minute (30d, 12h, 90m): "soon". Use a duration such as 90d: set PLATFORM_KEY_MAX_AGE to the age at which the API key is due for rotation.\n');
		const json = await runCliInProcess(['keys', 'show', '--json'], {env: {...env, PLATFORM_KEY_MAX_AGE: 'soon'}});
		expect(json.code).toBe(1);
		const last = JSON.parse(json.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
		expect(last).toMatchObject({type: 'error', code: 'setting-invalid', next: 'Use a duration such as 90d: set PLATFORM_KEY_MAX_AGE to the age at which the API key is due for rotation.'});
	});
});
