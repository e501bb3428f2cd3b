/**
 * `local --save-profile NAME` stores the local platform's address, key, ids and endpoint secret in
 * a profile, so another process uses --profile NAME instead of pasted export lines.
 */
import {mkdtempSync, readFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {runCli, startCli} from '../support/cli.js';
import {waitFor} from '../support/wait.js';

function records(text: string): Array<Record<string, unknown>> {
	return text.split('\n').filter(line => line.startsWith('{')).map(line => JSON.parse(line) as Record<string, unknown>);
}

describe('local --save-profile (built CLI)', () => {
	it('another process reaches the local platform with --profile alone, and the default profile is untouched', async () => {
		const directory = mkdtempSync(join(tmpdir(), 'platform-tui-local-profile-'));
		const env = {PLATFORM_TUI_CONFIG_DIR: directory};
		const local = startCli(['local', '--port', '0', '--save-profile', 'dev', '--json'], {env});
		try {
			const saved = await waitFor(() => records(local.stdout()).find(line => line.type === 'stored'), {what: 'the stored line of local --save-profile'});
			expect(saved).toMatchObject({name: 'profile', value: 'dev', path: join(directory, 'config.json')});
			const settings = records(local.stdout()).find(line => line.type === 'local-platform') ?? {};

			const rotated = await runCli(['--profile', 'dev', 'keys', 'rotate', '--yes', '--json'], {env});
			expect(rotated.code, rotated.stderr).toBe(0);
			expect(records(rotated.stdout).at(-1)).toMatchObject({type: 'result', command: 'keys rotate', exitCode: 0, profile: 'dev'});
			const file = JSON.parse(readFileSync(join(directory, 'config.json'), 'utf8')) as {apiKey?: string; profiles: Record<string, Record<string, string>>};
			const dev = file.profiles.dev ?? {};
			expect(dev).toMatchObject({baseUrl: settings.baseUrl, appId: settings.appId, userId: settings.userId, companyId: settings.companyId, assistantId: settings.assistantId, endpointSecret: settings.endpointSecret});
			expect(dev.apiKey).not.toBe(settings.apiKey);
			expect(file.apiKey).toBeUndefined();

			const fromEnv = await runCli(['config', 'get', 'baseUrl'], {env: {...env, PLATFORM_PROFILE: 'dev'}});
			expect(fromEnv.stdout).toBe(`${String(settings.baseUrl)}\n`);
		} finally {
			local.child.kill('SIGTERM');
			await local.closed;
		}
	});

	it('Ctrl+C after the profile is stored ends the run as designed: exit 0 and its result line', async () => {
		const directory = mkdtempSync(join(tmpdir(), 'platform-tui-local-profile-'));
		const local = startCli(['local', '--port', '0', '--save-profile', 'dev', '--json'], {env: {PLATFORM_TUI_CONFIG_DIR: directory}});
		await waitFor(() => records(local.stdout()).find(line => line.type === 'stored'), {what: 'the stored line of local --save-profile'});
		local.child.kill('SIGINT');
		expect(await local.closed, local.stderr()).toBe(0);
		expect(records(local.stdout()).at(-1)).toMatchObject({type: 'result', command: 'local', exitCode: 0});
	});
});
