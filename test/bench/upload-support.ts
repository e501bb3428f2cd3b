/**
 * What the upload benchmark's parts share: the local platform in a child process
 * (upload-platform.ts), the environment of a child CLI, and small helpers.
 */
import {spawn, type ChildProcess} from 'node:child_process';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {createInterface} from 'node:readline';
import {setTimeout as sleep} from 'node:timers/promises';
import {fileURLToPath} from 'node:url';
import {defined} from '../support/defined.js';

export type Settings = {baseUrl: string; apiKey: string; appId: string; userId: string; companyId: string; assistantId: string};

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, '../..');
export const cliPath = path.join(root, 'dist/cli.js');
export const mib = 1024 * 1024;

/** Starts the local platform (20 ms added to every request when asked) in a child process. */
export async function startPlatformProcess(latencyMs = 0): Promise<{settings: Settings; child: ChildProcess; stop: () => Promise<void>}> {
	const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'upload-platform.ts'), String(latencyMs)], {stdio: ['pipe', 'pipe', 'inherit'], cwd: root});
	const lines = createInterface({input: defined(child.stdout)});
	const first = await new Promise<string>((resolve, reject) => {
		const timer = setTimeout(() => {
			reject(new Error('the local platform did not start within 30 s'));
		}, 30_000);
		lines.once('line', line => {
			clearTimeout(timer);
			resolve(line);
		});
		child.once('exit', code => {
			clearTimeout(timer);
			reject(new Error(`the local platform exited with ${String(code)}`));
		});
	});
	const settings = JSON.parse(first) as Settings;
	return {
		settings,
		child,
		async stop() {
			const exited = new Promise(resolve => {
				child.once('exit', resolve);
			});
			defined(child.stdin).end();
			await Promise.race([exited, sleep(10_000).then(() => child.kill('SIGKILL'))]);
		},
	};
}

export function formatMiB(bytes: number): string {
	return `${(bytes / mib).toFixed(1)} MiB`;
}

/** The environment a child CLI needs to reach the platform, with config and data dirs of its own. */
export function cliEnv(settings: Settings): {env: NodeJS.ProcessEnv; cleanup: () => void} {
	const home = mkdtempSync(path.join(tmpdir(), 'platform-tui-bench-config-'));
	return {
		env: {
			...process.env,
			PLATFORM_BASE_URL: settings.baseUrl,
			PLATFORM_API_KEY: settings.apiKey,
			PLATFORM_APP_ID: settings.appId,
			PLATFORM_USER_ID: settings.userId,
			PLATFORM_COMPANY_ID: settings.companyId,
			PLATFORM_ASSISTANT_ID: settings.assistantId,
			PLATFORM_TUI_CONFIG_DIR: path.join(home, 'config'),
			PLATFORM_TUI_DATA_DIR: path.join(home, 'data'),
			CI: 'true',
		},
		cleanup() {
			rmSync(home, {recursive: true, force: true});
		},
	};
}

export function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return defined(sorted[Math.floor(sorted.length / 2)]);
}
