/**
 * Writes go through `conf`, the project's settings store, at the path the light reader reads; a
 * command that only reads never loads `conf` (it costs about 15 MiB of memory).
 */
import {execFileSync} from 'node:child_process';
import {existsSync, mkdtempSync, readdirSync, statSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import Conf from 'conf';
import {describe, expect, it} from 'vitest';
import {configFilePath} from '../../source/config/file.js';
import {ConfigStore} from '../../source/config/store.js';
import {childEnv, cliPath, moduleHookArgs} from '../support/cli.js';

function tempDir(): string {
	return mkdtempSync(join(tmpdir(), 'platform-tui-conf-'));
}

function confAt(cwd?: string): Conf {
	return new Conf({projectName: 'platform-tui', projectSuffix: '', ...(cwd ? {cwd} : {}), configName: 'config'});
}

describe('writes through conf', () => {
	it('uses the path conf uses, with PLATFORM_TUI_CONFIG_DIR and without it', () => {
		const dir = tempDir();
		expect(configFilePath({PLATFORM_TUI_CONFIG_DIR: dir})).toBe(confAt(dir).path);

		// Without the variable both follow the platform's config folder (XDG_CONFIG_HOME here).
		const home = tempDir();
		const saved = process.env.XDG_CONFIG_HOME;
		process.env.XDG_CONFIG_HOME = home;
		try {
			expect(configFilePath({})).toBe(join(home, 'platform-tui', 'config.json'));
			expect(configFilePath({})).toBe(confAt().path);
		} finally {
			if (saved === undefined) {
				delete process.env.XDG_CONFIG_HOME;
			} else {
				process.env.XDG_CONFIG_HOME = saved;
			}
		}
	});

	it('keeps the file 0600 (a loosened file too), leaves no temporary file, and conf reads what was written', async () => {
		const dir = tempDir();
		const store = new ConfigStore({PLATFORM_TUI_CONFIG_DIR: dir});
		writeFileSync(store.path, JSON.stringify({appId: 'app_1'}), {mode: 0o644});
		await store.setMany({apiKey: 'sk_conf_key_1111', rotation: {lastRotatedAt: '2026-01-01T00:00:00.000Z'}});
		expect(statSync(store.path).mode & 0o777).toBe(0o600);
		expect(confAt(dir).store).toEqual({appId: 'app_1', apiKey: 'sk_conf_key_1111', rotation: {lastRotatedAt: '2026-01-01T00:00:00.000Z'}});
		await store.delete('appId');
		expect(store.all()).toEqual({apiKey: 'sk_conf_key_1111', rotation: {lastRotatedAt: '2026-01-01T00:00:00.000Z'}});
		expect(readdirSync(dir).sort()).toEqual(['config.json']);
	});

	it('moves a damaged file aside (0600) when starting fresh', async () => {
		const dir = tempDir();
		const store = new ConfigStore({PLATFORM_TUI_CONFIG_DIR: dir});
		writeFileSync(store.path, '{"apiKey": ', {mode: 0o644});
		const {backup} = await store.startFresh({apiKey: 'sk_fresh_key_2222'});
		expect(backup).toMatch(/config\.json\..*\.bak$/);
		expect(statSync(backup ?? '').mode & 0o777).toBe(0o600);
		expect(store.all()).toEqual({apiKey: 'sk_fresh_key_2222'});
		expect(statSync(store.path).mode & 0o777).toBe(0o600);
	});

	it('loads conf only when writing (the built CLI, a fresh process each run)', () => {
		const dir = tempDir();
		const marker = join(dir, 'conf-loaded');
		// A resolve hook (on the loader thread) marks the first import of `conf` (the build leaves
		// it to node_modules, esbuild.config.mjs, so its import is seen here).
		const hook = moduleHookArgs(`
			import {writeFileSync} from 'node:fs';
			let marker;
			export function initialize(data) { marker = data.marker; }
			export async function resolve(specifier, context, next) {
				if (specifier === 'conf') writeFileSync(marker, 'yes');
				return next(specifier, context);
			}`, {marker});
		const run = (...args: string[]) => execFileSync(process.execPath, [...hook, cliPath, ...args], {encoding: 'utf8', env: childEnv({PLATFORM_TUI_CONFIG_DIR: dir}), timeout: 60_000});
		run('config', 'list');
		run('config', 'get', 'model');
		expect(existsSync(marker)).toBe(false);
		run('config', 'set', 'model', 'model-lazy-3333');
		expect(existsSync(marker)).toBe(true);
		expect(run('config', 'get', 'model')).toContain('model-lazy-3333');
	});
});
