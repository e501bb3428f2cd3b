/**
 * What serve says of its key after `keys rotate` rotated the key PLATFORM_API_KEY holds: serve
 * still runs on that key (the variable is read at start), so it names the key in use, until when
 * it works and the stored key to restart with; never the same key twice as "key" and "previous key".
 */
import {mkdtempSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {ConfigStore} from '../../source/config/store.js';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {runCli, startCli} from '../support/cli.js';
import {startPlatform} from '../support/platform.js';
import {waitFor} from '../support/wait.js';

let platform: LocalPlatform;

beforeAll(async () => {
	platform = (await startPlatform({keyOverlapMs: 2 * 60 * 60 * 1000})).platform;
});

afterAll(async () => {
	await platform.close();
});

describe('serve after the key in PLATFORM_API_KEY was rotated', () => {
	it('names the key in use as rotated out, until when it works, and the stored key; no "previous key" equal to it', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'platform-tui-serve-key-'));
		const oldKey = platform.apiKey;
		const env = {PLATFORM_TUI_CONFIG_DIR: dir, PLATFORM_TUI_DATA_DIR: dir, PLATFORM_BASE_URL: platform.baseUrl, PLATFORM_API_KEY: oldKey, PLATFORM_APP_ID: platform.appId, PLATFORM_USER_ID: platform.userId, PLATFORM_COMPANY_ID: platform.companyId, PLATFORM_ASSISTANT_ID: platform.assistantId, PLATFORM_ENDPOINT_SECRET: platform.endpointSecret};
		const rotated = await runCli(['keys', 'rotate', '--yes'], {env});
		expect(rotated.code).toBe(0);
		const newKey = new ConfigStore({PLATFORM_TUI_CONFIG_DIR: dir}).get('apiKey') ?? '';
		expect(newKey).not.toBe(oldKey);
		const serve = startCli(['serve', '--port', '0'], {env});
		try {
			const banner = await waitFor(() => serve.stderr(), {until: text => text.includes('Listening on'), what: 'the start-up line'});
			const old = `…${oldKey.slice(-4)}`;
			const stored = `…${newKey.slice(-4)}`;
			expect(banner).toContain(`key ${old} from PLATFORM_API_KEY`);
			expect(banner).toMatch(new RegExp(`this key was rotated out and works until \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z: restart with PLATFORM_API_KEY set to the stored key ${stored} \\(or unset\\)`));
			expect(banner).not.toContain(`previous key ${old}`);
		} finally {
			serve.child.kill('SIGKILL');
			await serve.closed;
		}
	});
});
