/**
 * The `keys rotate` screen in tmux, narrowed from 80 to 50 columns in a fresh window. tmux keeps
 * the blank rows under the cursor when it re-wraps, so the top rows of what it re-wrapped go into
 * its scrollback, out of any program's reach: a header drawn in the live frame was left there and
 * drawn again below (the title twice). The header is printed once now, so it is there once.
 * Waits on what tmux shows (capture-pane), never on a time.
 */
import {execFileSync, spawnSync} from 'node:child_process';
import {randomBytes} from 'node:crypto';
import {mkdtempSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {ConfigStore} from '../../source/config/store.js';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {cliPath} from '../support/cli.js';
import {startPlatform} from '../support/platform.js';
import {waitFor} from '../support/wait.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const socket = `platform-tui-test-${randomBytes(4).toString('hex')}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], {encoding: 'utf8'});
/** The pane's scrollback and screen, trailing blank lines dropped. */
const pane = () => tmux('capture-pane', '-p', '-J', '-S', '-', '-t', 'rotate').trimEnd().split('\n');

let platform: LocalPlatform;

beforeAll(async () => {
	platform = (await startPlatform({keyOverlapMs: 2 * 60 * 60 * 1000})).platform;
});

afterAll(async () => {
	spawnSync('tmux', ['-L', socket, 'kill-server']);
	await platform.close();
});

describe.skipIf(!hasTmux)('keys rotate in tmux', () => {
	it('narrowed from 80×24 to 50×24 in a fresh window: the title is there once', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'platform-tui-rotate-tmux-'));
		await new ConfigStore({PLATFORM_TUI_CONFIG_DIR: dir}).set('apiKey', platform.apiKey);
		const env = {PLATFORM_TUI_CONFIG_DIR: dir, PLATFORM_BASE_URL: platform.baseUrl, PLATFORM_APP_ID: platform.appId, PLATFORM_USER_ID: platform.userId, PLATFORM_COMPANY_ID: platform.companyId, PLATFORM_ASSISTANT_ID: platform.assistantId, TERM: 'xterm-256color'};
		const command = ['env', '-u', 'CI', ...Object.entries(env).map(([name, value]) => `${name}=${value}`), process.execPath, cliPath, 'keys', 'rotate'].map(part => `'${part}'`).join(' ');
		// The shell stays after the program, so the pane can be read after it ends.
		tmux('new-session', '-d', '-s', 'rotate', '-x', '80', '-y', '24', `${command}; echo EXIT=$?; sleep 600`);
		await waitFor(pane, {until: lines => lines.some(line => line.startsWith('Rotate now?')), what: 'the question'});
		tmux('resize-window', '-t', 'rotate', '-x', '50', '-y', '24');
		// The question drawn again at 50 columns (capture-pane -J joins the rows tmux re-wrapped).
		const after = await waitFor(pane, {until: lines => lines.some(line => line.startsWith('Rotate now?') && line.length <= 50), what: 'the question redrawn at 50 columns'});
		expect(after.filter(line => line.includes('Rotate the API key'))).toHaveLength(1);
		expect(after.filter(line => line.startsWith('Current key'))).toHaveLength(1);
		tmux('send-keys', '-t', 'rotate', 'n');
		const ended = await waitFor(pane, {until: lines => lines.some(line => line.startsWith('EXIT=')), what: 'the end'});
		expect(ended.filter(line => line.includes('Rotation cancelled'))).toEqual(['Error: Rotation cancelled; the key is unchanged.']);
		expect(ended).toContain('EXIT=1');
	});
});
