import {mkdtempSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {ConfigStore} from '../../source/config/store.js';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {startPlatform} from '../support/platform.js';
import {runInPty, stripAnsi} from '../support/pty.js';
import {waitFor} from '../support/wait.js';

function configDir(): string {
	return mkdtempSync(join(tmpdir(), 'platform-tui-keys-pty-'));
}

describe('platform-tui keys on a terminal (pseudo-terminal)', () => {
	let platform: LocalPlatform;

	beforeAll(async () => {
		platform = (await startPlatform({keyOverlapMs: 2 * 60 * 60 * 1000})).platform;
	});

	afterAll(async () => {
		await platform.close();
	});

	it('keys rotate: confirm with y, see the new key masked, reveal it once with r, then it is masked for good', async () => {
		const dir = configDir();
		const store = new ConfigStore({PLATFORM_TUI_CONFIG_DIR: dir});
		const oldKey = platform.apiKey;
		await store.set('apiKey', oldKey);
		const session = runInPty(['keys', 'rotate'], {env: {
			PLATFORM_TUI_CONFIG_DIR: dir,
			PLATFORM_BASE_URL: platform.baseUrl,
			PLATFORM_APP_ID: platform.appId,
			PLATFORM_USER_ID: platform.userId,
			PLATFORM_COMPANY_ID: platform.companyId,
			PLATFORM_ASSISTANT_ID: platform.assistantId,
		}});
		try {
			const confirm = await session.waitFor('Rotate now?');
			expect(confirm).toContain(`…${oldKey.slice(-4)}`);
			expect(confirm).not.toContain(oldKey);
			session.write('y');
			const done = await session.waitFor('press r to reveal it once');
			const newKey = platform.apiKey;
			expect(newKey).not.toBe(oldKey);
			// Stored before anything was shown.
			expect(store.get('apiKey')).toBe(newKey);
			expect(done).toContain(`…${newKey.slice(-4)}`);
			expect(done).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
			expect(done).toMatch(/Overlap left\s+(1 h 59 min|2 h 00 min)/);
			expect(done).not.toContain(newKey);

			session.write('r');
			await session.waitFor(newKey);
			const revealedAt = stripAnsi(session.output()).length;
			session.write('r');
			await session.waitFor('can not be shown again');
			session.write('r');
			session.write('q');
			const {code, output} = await session.exit();
			expect(code).toBe(0);
			// After it was hidden again, the key never came back.
			const afterHide = output.slice(output.indexOf('can not be shown again', revealedAt));
			expect(afterHide).not.toContain(newKey);
			expect(output).not.toContain(oldKey);
		} finally {
			session.kill('SIGKILL');
		}
	});

	it('keys rotate: n cancels, exits 1 and leaves the key unchanged', async () => {
		const dir = configDir();
		const store = new ConfigStore({PLATFORM_TUI_CONFIG_DIR: dir});
		const key = platform.apiKey;
		await store.set('apiKey', key);
		const before = platform.requests.length;
		const session = runInPty(['keys', 'rotate'], {env: {PLATFORM_TUI_CONFIG_DIR: dir, PLATFORM_BASE_URL: platform.baseUrl, PLATFORM_APP_ID: platform.appId, PLATFORM_USER_ID: platform.userId, PLATFORM_COMPANY_ID: platform.companyId, PLATFORM_ASSISTANT_ID: platform.assistantId}});
		try {
			await session.waitFor('Rotate now?');
			session.write('n');
			const {code, output} = await session.exit();
			expect(code).toBe(1);
			expect(output).toContain('Rotation cancelled; the key is unchanged.');
			expect(store.get('apiKey')).toBe(key);
			expect(platform.requests.length).toBe(before);
		} finally {
			session.kill('SIGKILL');
		}
	});

	it('keys rotate: n prints its one sentence once', async () => {
		const dir = configDir();
		const store = new ConfigStore({PLATFORM_TUI_CONFIG_DIR: dir});
		await store.set('apiKey', platform.apiKey);
		const session = runInPty(['keys', 'rotate'], {env: {PLATFORM_TUI_CONFIG_DIR: dir, PLATFORM_BASE_URL: platform.baseUrl, PLATFORM_APP_ID: platform.appId, PLATFORM_USER_ID: platform.userId, PLATFORM_COMPANY_ID: platform.companyId, PLATFORM_ASSISTANT_ID: platform.assistantId}});
		try {
			await session.waitFor('Rotate now?');
			session.write('n');
			const {code} = await session.exit();
			expect(code).toBe(1);
			// The screen, the scrollback and what was printed after it: the sentence is on one line, once.
			const text = session.terminal().text();
			expect(text.filter(line => line.includes('Rotation cancelled'))).toEqual(['Error: Rotation cancelled; the key is unchanged.']);
			expect(text.some(line => line.includes('Rotate now?'))).toBe(false);
		} finally {
			session.kill('SIGKILL');
		}
	});

	it('keys rotate at 80×24, narrowed to 50 columns, rotated at 60: no row the program wrapped begins with a space, the title once, the config path never broken', async () => {
		const dir = join(configDir(), 'a-config-folder-with-a-long-name', 'so-that-the-path-is-wider-than-the-row');
		const store = new ConfigStore({PLATFORM_TUI_CONFIG_DIR: dir});
		await store.set('apiKey', platform.apiKey);
		const session = runInPty(['keys', 'rotate'], {columns: 80, rows: 24, resizable: true, env: {PLATFORM_TUI_CONFIG_DIR: dir, PLATFORM_BASE_URL: platform.baseUrl, PLATFORM_APP_ID: platform.appId, PLATFORM_USER_ID: platform.userId, PLATFORM_COMPANY_ID: platform.companyId, PLATFORM_ASSISTANT_ID: platform.assistantId}});
		const lines = () => session.terminal().text();
		try {
			const first = await waitFor(() => lines(), {until: text => text.some(line => line.startsWith('Rotate now?')), what: 'the question'});
			// What the program wrapped (the terminal re-wraps it later at its own columns, spaces and all).
			expect(first.filter(line => /^ \S/.test(line))).toEqual([]);
			session.resize(50, 24);
			await waitFor(() => lines(), {until: text => text.includes('cancel)'), what: 'the question redrawn at 50 columns'});
			expect(lines().filter(line => line.includes('Rotate the API key'))).toHaveLength(1);
			session.resize(60, 24);
			await waitFor(() => lines(), {until: text => text.some(line => line.startsWith('Rotate now?') && line.endsWith('cancel)')), what: 'the question redrawn at 60 columns'});
			session.write('y');
			const done = await waitFor(() => lines(), {until: text => text.some(line => line.startsWith('Overlap left')), what: 'the rotated key'});
			expect(done.filter(line => line.includes('Rotate the API key'))).toHaveLength(1);
			expect(done.slice(done.findIndex(line => line.includes('API key rotated'))).filter(line => /^ \S/.test(line))).toEqual([]);
			// The path is whole on its row or shortened in its middle (the line printed at the end names it whole), never wrapped.
			const stored = done.find(line => line.startsWith('Stored in')) ?? '';
			expect(stored).toMatch(/^Stored in +\/.*….*\/config\.json \(mode 0600\)$/);
			session.write('q');
			const {code} = await session.exit();
			expect(code).toBe(0);
			expect(lines().join('').replaceAll(/\s/g, '')).toContain(store.path.replaceAll(/\s/g, ''));
		} finally {
			session.kill('SIGKILL');
		}
	});

	it('keys rotate --yes at 60×15 finishes by itself: the result as ordinary output with a trailing newline, the screen never cleared', async () => {
		const dir = configDir();
		const store = new ConfigStore({PLATFORM_TUI_CONFIG_DIR: dir});
		const oldKey = platform.apiKey;
		await store.set('apiKey', oldKey);
		const session = runInPty(['keys', 'rotate', '--yes'], {columns: 60, rows: 15, env: {PLATFORM_TUI_CONFIG_DIR: dir, PLATFORM_BASE_URL: platform.baseUrl, PLATFORM_APP_ID: platform.appId, PLATFORM_USER_ID: platform.userId, PLATFORM_COMPANY_ID: platform.companyId, PLATFORM_ASSISTANT_ID: platform.assistantId}});
		try {
			const {code, output} = await session.exit();
			expect(code).toBe(0);
			const newKey = platform.apiKey;
			expect(store.get('apiKey')).toBe(newKey);
			expect(output).toContain(`Rotated the API key …${oldKey.slice(-4)} → …${newKey.slice(-4)}, stored in ${store.path}`);
			expect(output).toMatch(/keeps working until .+ from now\.\r?\n$/);
			expect(output).not.toContain(newKey);
			expect(output).not.toContain('Rotate now?');
			// Ink clears the whole screen (and the scrollback) with ESC[2J / ESC[3J when its frame outgrows the terminal.
			expect(session.output()).not.toContain('\u001B[2J');
			expect(session.output()).not.toContain('\u001B[3J');
		} finally {
			session.kill('SIGKILL');
		}
	});

	it('keys rotate: r prints the key whole on a line of its own even at 30 columns', async () => {
		const dir = configDir();
		const store = new ConfigStore({PLATFORM_TUI_CONFIG_DIR: dir});
		await store.set('apiKey', platform.apiKey);
		const session = runInPty(['keys', 'rotate'], {columns: 30, rows: 40, env: {PLATFORM_TUI_CONFIG_DIR: dir, PLATFORM_BASE_URL: platform.baseUrl, PLATFORM_APP_ID: platform.appId, PLATFORM_USER_ID: platform.userId, PLATFORM_COMPANY_ID: platform.companyId, PLATFORM_ASSISTANT_ID: platform.assistantId}});
		try {
			await session.waitFor('Rotate now?');
			session.write('y');
			await session.waitFor('API key rotated');
			const newKey = platform.apiKey;
			expect(newKey.length).toBeGreaterThan(30);
			session.write('r');
			await session.waitFor(newKey);
			session.write('q');
			const {code, output} = await session.exit();
			expect(code).toBe(0);
			// The terminal wraps the line, not the program: the key is one unbroken line, nothing else on it.
			expect(output.split(/\r?\n/).map(line => line.replace(/\r/g, ''))).toContain(newKey);
		} finally {
			session.kill('SIGKILL');
		}
	});

	it('keys set: Ctrl+C as soon as the prompt shows cancels and stores nothing', async () => {
		const dir = configDir();
		const session = runInPty(['keys', 'set'], {env: {PLATFORM_TUI_CONFIG_DIR: dir}});
		try {
			await session.waitFor('API key:');
			session.write('\u0003');
			const {code} = await session.exit();
			expect(code).toBe(130);
			expect(new ConfigStore({PLATFORM_TUI_CONFIG_DIR: dir}).get('apiKey')).toBeUndefined();
		} finally {
			session.kill('SIGKILL');
		}
	});

	it('keys set: a masked prompt that never shows the key', async () => {
		const dir = configDir();
		const key = 'sk_typed_into_the_prompt_Zx81';
		const session = runInPty(['keys', 'set'], {env: {PLATFORM_TUI_CONFIG_DIR: dir}});
		try {
			await session.waitFor('API key:');
			session.write(key);
			await session.waitFor('•'.repeat(key.length));
			session.write('\r');
			const {code, output} = await session.exit();
			expect(code).toBe(0);
			expect(output).toContain('Stored API key …Zx81');
			expect(output).not.toContain(key);
			expect(new ConfigStore({PLATFORM_TUI_CONFIG_DIR: dir}).get('apiKey')).toBe(key);
		} finally {
			session.kill('SIGKILL');
		}
	});
});
