/**
 * A run without a terminal loads no screen code: `serve --json` and `keys rotate --yes --json`
 * (what scripts, services and the suite run most) load neither React nor Ink nor the width
 * measuring of tables and wrapping (string-width builds an Intl.Segmenter at load). A load hook
 * records every module file the built CLI loads; each bundle chunk's source map names the packages
 * it holds.
 */
import {existsSync, mkdtempSync, readFileSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {afterAll, describe, expect, it} from 'vitest';
import {moduleHookArgs, startCli} from '../support/cli.js';
import {hangLimitMs, waitFor} from '../support/wait.js';

const dir = mkdtempSync(join(tmpdir(), 'platform-tui-lean-'));

afterAll(() => {
	rmSync(dir, {recursive: true, force: true});
});

/** Starts the built CLI with a hook that appends the URL of each module it loads to `log`. */
function startRecorded(args: string[], log: string, env: Record<string, string>) {
	const nodeArgs = moduleHookArgs(`
		import {appendFileSync} from 'node:fs';
		let log;
		export function initialize(data) { log = data.log; }
		export async function load(url, context, next) {
			appendFileSync(log, url + '\\n');
			return next(url, context);
		}`, {log});
	const run = startCli(args, {env, nodeArgs});
	// Neither command reads its input.
	run.child.stdin.end();
	return run;
}

/** The packages in the bundle chunks (and beside them in node_modules) a run loaded. */
function loadedPackages(log: string): Set<string> {
	const packages = new Set<string>();
	const name = (path: string) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1];
	for (const url of readFileSync(log, 'utf8').split('\n').filter(line => line.startsWith('file:'))) {
		const file = fileURLToPath(url);
		const direct = name(file);
		if (direct) {
			packages.add(direct);
		} else if (existsSync(`${file}.map`)) {
			const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as {sources: string[]};
			for (const source of map.sources) {
				const inside = name(source);
				if (inside) {
					packages.add(inside);
				}
			}
		}
	}

	return packages;
}

const screenPackages = ['react', 'ink', 'string-width', 'wrap-ansi', 'cli-truncate'];

const settings = {
	PLATFORM_TUI_CONFIG_DIR: join(dir, 'config'),
	PLATFORM_TUI_DATA_DIR: join(dir, 'data'),
	PLATFORM_BASE_URL: 'http://127.0.0.1:9',
	PLATFORM_API_KEY: 'sk_lean_start_1111',
	PLATFORM_APP_ID: 'app',
	PLATFORM_USER_ID: 'user',
	PLATFORM_COMPANY_ID: 'company',
	PLATFORM_ASSISTANT_ID: 'assistant',
	PLATFORM_ENDPOINT_SECRET: 'whsec_lean',
};

describe('a run without a terminal', () => {
	it('serve --json loads no screen code', async () => {
		const log = join(dir, 'serve.log');
		const run = startRecorded(['serve', '--port', '0', '--json'], log, settings);
		try {
			await waitFor(() => run.stdout().includes('"type":"listening"'), {what: 'serve to listen'});
		} finally {
			run.child.kill('SIGTERM');
		}

		expect(await run.closed).toBe(0);
		const packages = loadedPackages(log);
		expect(packages.has('prom-client')).toBe(true);
		expect(screenPackages.filter(name => packages.has(name))).toEqual([]);
	}, hangLimitMs);

	it('keys rotate --yes --json loads no screen code', async () => {
		const log = join(dir, 'rotate.log');
		const run = startRecorded(['keys', 'rotate', '--yes', '--json'], log, settings);
		// The platform at port 9 cannot be reached: the run fails, having loaded all it would use.
		expect(await run.closed).toBe(1);
		expect(run.stdout()).toContain('127.0.0.1:9');
		const packages = loadedPackages(log);
		expect(packages.has('zod')).toBe(true);
		expect(screenPackages.filter(name => packages.has(name))).toEqual([]);
	}, hangLimitMs);
});
