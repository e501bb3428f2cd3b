/**
 * The built CLI run as a user without root's rights: the test's own user, or nobody when the tests
 * run as root (as CI does), since root opens and writes anything. The child gets a home, config
 * and data folders of its own that it may write.
 */
import {spawn} from 'node:child_process';
import {chownSync, mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {childEnv, cliPath, collectOutput, type CliResult} from './cli.js';
import {hangLimitMs} from './wait.js';

/** nobody's uid and gid. */
export const unprivileged = 65_534;
export const asRoot = process.getuid?.() === 0;

export async function runUnprivileged(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
	const home = mkdtempSync(path.join(tmpdir(), 'platform-tui-unprivileged-'));
	if (asRoot) {
		chownSync(home, unprivileged, unprivileged);
	}

	const child = spawn(process.execPath, [cliPath, ...args], {
		env: childEnv({...env, HOME: home, PLATFORM_TUI_CONFIG_DIR: path.join(home, 'config'), PLATFORM_TUI_DATA_DIR: path.join(home, 'data')}),
		stdio: ['ignore', 'pipe', 'pipe'],
		...(asRoot ? {uid: unprivileged, gid: unprivileged} : {}),
	});
	const output = collectOutput(child);
	const timer = setTimeout(() => child.kill('SIGKILL'), hangLimitMs);
	try {
		const code = await new Promise<number | null>((resolve, reject) => {
			child.on('error', reject);
			child.on('close', resolve);
		});
		return {code, signal: child.signalCode, stdout: output.stdout(), stderr: output.stderr()};
	} finally {
		clearTimeout(timer);
		rmSync(home, {recursive: true, force: true});
	}
}
