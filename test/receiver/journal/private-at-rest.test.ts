/**
 * Private at rest (built CLI, under `umask 022` and `umask 000`): with a fresh
 * PLATFORM_TUI_DATA_DIR and PLATFORM_TUI_CONFIG_DIR, each some folders deep, what the program makes
 * there (the config file, the journal and its side files after a serve took an event and stopped,
 * the upload manifests) and an `events export --output` file are folders 0700 and files 0600:
 * every entry of both trees is looked at.
 */
import {lstatSync, mkdtempSync, readdirSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {runCli, startCli} from '../../support/cli.js';
import {startPlatform, type TestPlatform} from '../../support/platform.js';
import {waitFor} from '../../support/wait.js';
import {sendSigned, userMessageEvent} from '../helpers.js';
import {makeFolder} from '../../workflow/helpers.js';

/** Every entry below `folder` (itself included) with its permission bits, as `0700 journal/`. */
function modes(folder: string): string[] {
	const found: string[] = [];
	const walk = (entry: string) => {
		const stats = lstatSync(entry);
		const name = path.relative(folder, entry) || '.';
		found.push(`${(stats.mode & 0o7777).toString(8).padStart(4, '0')} ${name}${stats.isDirectory() ? '/' : ''}`);
		if (stats.isDirectory()) {
			for (const child of readdirSync(entry)) {
				walk(path.join(entry, child));
			}
		}
	};

	walk(folder);
	return found;
}

let platform: TestPlatform;
let root: string;
let upload: ReturnType<typeof makeFolder>;

beforeAll(async () => {
	platform = await startPlatform();
	root = mkdtempSync(path.join(tmpdir(), 'private-'));
	upload = makeFolder({'notes.md': 'The keeper writes the weather down every night.\n'});
});

afterAll(async () => {
	await platform.close();
	upload.cleanup();
	rmSync(root, {recursive: true, force: true});
});

describe.each(['022', '000'])('under umask %s, what the program writes is its owner\'s alone (built CLI)', umask => {
	it('the config, the journal after a serve, the upload manifests and an export: folders 0700, files 0600', async () => {
		const top = path.join(root, `umask-${umask}`);
		const dataDir = path.join(top, 'var', 'lib', 'platform-tui');
		const configDir = path.join(top, 'home', '.config', 'platform-tui');
		const env = platform.env({PLATFORM_TUI_DATA_DIR: dataDir, PLATFORM_TUI_CONFIG_DIR: configDir});
		// The umask is the child's own, set before the CLI's first line runs.
		const nodeArgs = ['--import', `data:text/javascript,process.umask(0o${umask})`];

		const stored = await runCli(['config', 'set', 'model', 'private-model'], {env, nodeArgs});
		expect(stored.code, stored.stderr).toBe(0);

		const serve = startCli(['serve', '--port', '0', '--json'], {env, nodeArgs});
		const listening = await waitFor(() => serve.stdout().split('\n')[0] ?? '', {until: line => line.startsWith('{') || serve.child.exitCode !== null, what: 'serve to listen'});
		const {url} = JSON.parse(listening) as {url: string};
		const event = userMessageEvent({text: 'my private question'});
		expect((await sendSigned(`${url}/webhook`, event, platform.platform.endpointSecret)).status).toBe(200);
		serve.child.kill('SIGINT');
		expect(await serve.closed).toBe(0);

		const exported = await runCli(['events', 'export', String(event.id), '--output', path.join(top, 'event.json')], {env, nodeArgs});
		expect(exported.code, exported.stderr).toBe(0);

		const sent = await runCli(['upload', upload.dir, 'What does the keeper write?', '--json'], {env, nodeArgs});
		expect(sent.code, sent.stderr).toBe(0);

		const data = modes(dataDir);
		// The journal's files and a manifest are there to be looked at.
		expect(data).toEqual(expect.arrayContaining(['0600 journal/data.mdb', '0600 journal/lock.mdb', '0600 journal/seal.json', '0600 journal/identity.json']));
		expect(data.some(line => /^0600 sync\/[^/]+\/[^/]+\.json$/.test(line))).toBe(true);
		const config = modes(configDir);
		expect(config).toContain('0600 config.json');
		const everything = [...data, ...config, ...modes(path.join(top, 'var')), ...modes(path.join(top, 'home')), ...modes(path.join(top, 'event.json'))];
		expect(everything.filter(line => !(line.endsWith('/') ? line.startsWith('0700 ') : line.startsWith('0600 ')))).toEqual([]);
	});
});
