import {spawn} from 'node:child_process';
import {chmodSync, chownSync, mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {childEnv, cliPath, collectOutput, type CliResult} from '../support/cli.js';
import {platformEnv, startPlatform} from '../support/platform.js';
import {makeFolder} from './helpers.js';

/** Root opens any file, so as root the CLI runs as this unprivileged user (nobody) instead. */
const unprivileged = 65_534;
const asRoot = process.getuid?.() === 0;

/**
 * Runs the built CLI as a user who cannot read a mode-000 file: the test's own user, or nobody
 * when the tests run as root (as CI does). The child gets config and data dirs of its own that
 * it may write.
 */
async function runUnprivileged(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
	const home = mkdtempSync(path.join(tmpdir(), 'platform-tui-nobody-'));
	if (asRoot) {
		chownSync(home, unprivileged, unprivileged);
	}

	const child = spawn(process.execPath, [cliPath, ...args], {
		env: childEnv({...env, HOME: home, PLATFORM_TUI_CONFIG_DIR: path.join(home, 'config'), PLATFORM_TUI_DATA_DIR: path.join(home, 'data')}),
		stdio: ['ignore', 'pipe', 'pipe'],
		...(asRoot ? {uid: unprivileged, gid: unprivileged} : {}),
	});
	const output = collectOutput(child);
	const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
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

describe(`upload: a file the process cannot open (built CLI${asRoot ? ', run as nobody since the tests run as root' : ''})`, () => {
	let platform: LocalPlatform;

	beforeAll(async () => {
		platform = (await startPlatform()).platform;
	});

	afterAll(async () => {
		await platform.close();
	});

	it('is named with the reason before anything is created: no chat, no content, exit 1', async () => {
		const docs = makeFolder({'a.txt': 'alpha', 'b.txt': 'beta', 'c.txt': 'gamma'});
		try {
			chmodSync(docs.dir, 0o755);
			chmodSync(path.join(docs.dir, 'b.txt'), 0o000);
			const result = await runUnprivileged(['upload', docs.dir, 'q', '--poll-interval', '0.05'], platformEnv(platform));
			expect(result.stderr).toBe(`Error: Cannot read 1 file in ${docs.dir}, so nothing was created: b.txt (permission denied). Fix the permissions, or move the file out of the folder.\n`);
			expect(result.code).toBe(1);
			expect(result.stdout).not.toContain('Done');
			// Nothing was created on the platform: no chat, no content, no blob, no message.
			expect(platform.requests.filter(record => record.method !== 'GET')).toEqual([]);
			expect(platform.requests.some(record => record.path.startsWith('/content') || record.path === '/space/chat')).toBe(false);
		} finally {
			docs.cleanup();
		}
	});

	it('the same user uploads the folder once the file is readable (the child setup itself works)', async () => {
		const docs = makeFolder({'a.txt': 'Every Aurora Mini comes with a two-year limited warranty.\n'});
		try {
			chmodSync(docs.dir, 0o755);
			const result = await runUnprivileged(['upload', docs.dir, 'How long is the warranty?', '--poll-interval', '0.05'], platformEnv(platform));
			expect(result.stderr).not.toContain('Error');
			expect(result.code).toBe(0);
			expect(result.stderr).toMatch(/Done: chat chat_\w+/);
		} finally {
			docs.cleanup();
		}
	});
});
