/**
 * Writes go through `conf`, the project's settings store, at the path the light reader reads; a
 * command that only reads never loads `conf` (it costs about 15 MiB of memory).
 */
import {execFileSync} from 'node:child_process';
import {mkdtempSync, readdirSync, statSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import Conf from 'conf';
import {describe, expect, it} from 'vitest';
import {configFilePath} from '../../source/config/file.js';
import {ConfigStore} from '../../source/config/store.js';

const storeModule = fileURLToPath(new URL('../../dist/config/store.js', import.meta.url));

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

	it('loads conf only when writing (built module, fresh process)', () => {
		const dir = tempDir();
		const marker = join(dir, 'conf-loaded');
		// A resolve hook (on the loader thread) marks the first import of `conf`.
		const hooks = `data:text/javascript,${encodeURIComponent(`
			import {writeFileSync} from 'node:fs';
			let marker;
			export function initialize(data) { marker = data.marker; }
			export async function resolve(specifier, context, next) {
				if (specifier === 'conf') writeFileSync(marker, 'yes');
				return next(specifier, context);
			}`)}`;
		const script = `
			import {register} from 'node:module';
			import {existsSync} from 'node:fs';
			register(${JSON.stringify(hooks)}, {data: {marker: ${JSON.stringify(marker)}}});
			const {ConfigStore} = await import(${JSON.stringify(storeModule)});
			const store = new ConfigStore({PLATFORM_TUI_CONFIG_DIR: ${JSON.stringify(dir)}});
			store.all();
			store.get('apiKey');
			const afterRead = existsSync(${JSON.stringify(marker)});
			await store.set('apiKey', 'sk_lazy_key_3333');
			console.log(JSON.stringify({afterRead, afterWrite: existsSync(${JSON.stringify(marker)}), key: store.get('apiKey')}));`;
		const output = execFileSync(process.execPath, ['--input-type=module', '--eval', script], {encoding: 'utf8', timeout: 20_000});
		expect(JSON.parse(output)).toEqual({afterRead: false, afterWrite: true, key: 'sk_lazy_key_3333'});
	});
});
