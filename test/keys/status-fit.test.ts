/**
 * `keys show` on a narrow terminal: every line fits the window's width (display width, so a path
 * in CJK counts two columns a character), a wrapped line goes on under the value column, and a
 * time stays whole. On a wide terminal, and into a pipe, the lines are the ones printed before.
 */
import {mkdtempSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import keysShow from '../../source/commands/keys/show.js';
import {ConfigStore} from '../../source/config/store.js';
import {displayWidth} from '../../source/format/width.js';
import type {KeyStatus} from '../../source/keys/status.js';
import {fitStatusLines} from '../../source/ui/keys/status-fit.js';
import {statusLines} from '../../source/ui/keys/status-lines.js';
import {memoryStream, runCommand, testEnv} from '../support/run-command.js';

const rotatedAt = Date.parse('2031-03-11T09:00:00.000Z');
const hour = 3_600_000;
const now = new Date(rotatedAt + hour);
const status = (configPath: string): KeyStatus => ({
	configPath,
	envHoldsPreviousKey: false,
	key: {masked: '…new1', source: 'stored'},
	keySetAt: new Date(rotatedAt).toISOString(),
	ageMs: hour,
	lastRotatedAt: new Date(rotatedAt).toISOString(),
	previousKey: {masked: '…old1', expiresAt: new Date(rotatedAt + (24 * hour)).toISOString(), valid: true, remainingMs: 23 * hour},
});
const widest = (lines: readonly string[]) => Math.max(...lines.map(line => displayWidth(line)));

describe('keys show fitted to the terminal', () => {
	it('at 60 columns no line is wider, wrapped rows go on under the value column, a time stays whole', () => {
		for (const path of ['/home/me/.config/platform-tui/config.json', '/home/用户/設定/平台/配置文件夹/platform-tui/config.json']) {
			const lines = statusLines(status(path), now);
			expect(widest(lines)).toBeGreaterThan(60);
			const fitted = fitStatusLines(lines, 60);
			expect(widest(fitted)).toBeLessThanOrEqual(60);
			for (const line of fitted) {
				expect(line, line).toMatch(/^(API key|Key age|Next rotation|Last rotation|Previous key) *\S|^ {15}\S/);
				expect(line).toBe(line.trimEnd());
			}

			expect(fitted).toContain('Previous key   …old1 still works until');
			expect(fitted).toContain('               2031-03-12 09:00:00 UTC');
			expect(fitted).toContain('               `platform-tui config set keyMaxAge 90d`');
		}
	});

	it('at 100 columns the lines are unchanged', () => {
		const lines = statusLines(status('/home/me/.config/platform-tui/config.json'), now);
		expect(fitStatusLines(lines, 100)).toEqual(lines);
	});

	it('the command fits a 60-column terminal and leaves a pipe\'s lines whole', async () => {
		const env = testEnv({PLATFORM_TUI_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'platform-tui-fit-')), PLATFORM_API_KEY: undefined, NO_COLOR: '1'});
		await new ConfigStore(env).transaction(async transaction => transaction.write({
			apiKey: 'sk_new_key_0000new1',
			rotation: {previousKeyMasked: '…old1', previousKeyExpiresAt: new Date(rotatedAt + (24 * hour)).toISOString(), lastRotatedAt: new Date(rotatedAt).toISOString(), keySetAt: new Date(rotatedAt).toISOString()},
		}));
		const clock = {now: () => now.getTime()};
		const terminal = await runCommand(keysShow, {env, clock, stdout: Object.assign(memoryStream(), {isTTY: true, columns: 60})});
		const piped = await runCommand(keysShow, {env, clock, stdout: Object.assign(memoryStream(), {columns: 60})});
		expect(terminal.code).toBe(0);
		expect(widest(terminal.stdout.trimEnd().split('\n'))).toBeLessThanOrEqual(60);
		expect(terminal.stdout).toContain('Previous key   …old1 still works until\n               2031-03-12 09:00:00 UTC\n');
		expect(piped.stdout).toContain('Previous key   …old1 still works until 2031-03-12 09:00:00 UTC\n');
		expect(widest(piped.stdout.trimEnd().split('\n'))).toBeGreaterThan(60);
	});
});
