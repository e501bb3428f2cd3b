import {mkdtempSync, readFileSync, statSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {startPlatform} from '../support/platform.js';
import {runInPty, type PtySession} from '../support/pty.js';

let platform: LocalPlatform;

beforeAll(async () => {
	platform = (await startPlatform()).platform;
});

afterAll(async () => {
	await platform.close();
});

/**
 * Answers once the question shows. No pause is needed: the form keeps one input for every question,
 * and keys typed before the terminal is in raw mode arrive as one line that the input submits.
 */
async function answer(session: PtySession, question: string, value: string) {
	await session.waitFor(question);
	session.write(`${value}\r`);
}

describe('platform-tui init in a terminal', () => {
	it('asks each setting, checks them with one Get space call and stores them with mode 0600', async () => {
		const session = runInPty(['init']);
		await answer(session, 'PLATFORM_BASE_URL', platform.baseUrl);
		await answer(session, 'PLATFORM_API_KEY', platform.apiKey);
		await answer(session, 'PLATFORM_APP_ID', platform.appId);
		await answer(session, 'PLATFORM_USER_ID', platform.userId);
		await answer(session, 'PLATFORM_COMPANY_ID', platform.companyId);
		await answer(session, 'PLATFORM_ASSISTANT_ID', platform.assistantId);
		await answer(session, 'PLATFORM_ENDPOINT_SECRET', platform.endpointSecret);
		await answer(session, 'PLATFORM_MODEL', '');
		await session.waitFor('Saved to');
		const {code, output} = await session.exit();
		expect(code).toBe(0);
		expect(output).not.toContain(platform.apiKey);
		expect(output).not.toContain(platform.endpointSecret);
		expect(output).toContain(`apiKey: …${platform.apiKey.slice(-4)}`);
		expect(output).toContain('Found the space');
		expect(output).toContain('Next: platform-tui upload <folder> "<question>"');

		const file = join(process.env.PLATFORM_TUI_CONFIG_DIR ?? '', 'config.json');
		expect(statSync(file).mode & 0o777).toBe(0o600);
		const stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
		expect(stored).toMatchObject({
			baseUrl: platform.baseUrl,
			apiKey: platform.apiKey,
			appId: platform.appId,
			userId: platform.userId,
			companyId: platform.companyId,
			assistantId: platform.assistantId,
			endpointSecret: platform.endpointSecret,
			model: 'AZURE_GPT_4o_2024_1120',
		});
		// The key's age starts when init stores it, as with keys set.
		expect(Date.parse((stored.rotation as unknown as {keySetAt: string}).keySetAt)).toBeGreaterThan(0);
		const spaceCalls = platform.requests.filter(request => request.method === 'GET' && request.path === `/space/${platform.assistantId}`);
		expect(spaceCalls).toHaveLength(1);
	});

	for (const [columns, rows] of [[80, 24], [60, 15]] as const) {
		it(`at ${columns}×${rows} ends with the result as ordinary output and a trailing newline`, async () => {
			const session = runInPty(['init'], {columns, rows, env: {PLATFORM_TUI_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'platform-tui-init-'))}});
			try {
				for (const [question, value] of [
					['PLATFORM_BASE_URL', platform.baseUrl],
					['PLATFORM_API_KEY', platform.apiKey],
					['PLATFORM_APP_ID', platform.appId],
					['PLATFORM_USER_ID', platform.userId],
					['PLATFORM_COMPANY_ID', platform.companyId],
					['PLATFORM_ASSISTANT_ID', platform.assistantId],
					['PLATFORM_ENDPOINT_SECRET', platform.endpointSecret],
					['PLATFORM_MODEL', ''],
				] as const) {
					await answer(session, question, value);
				}

				const {code, output} = await session.exit();
				expect(code).toBe(0);
				// The last line ends with a newline, so the shell's prompt starts on a line of its own.
				expect(output).toMatch(/Next: platform-tui upload <folder> "<question>"\r?\n$/);
				const screen = session.terminal().text();
				expect(screen.some(line => line.startsWith('✔ Saved to '))).toBe(true);
				expect(screen.some(line => line.startsWith('✔ Found the space'))).toBe(true);
				expect(screen.filter(line => line.includes('Next: platform-tui upload'))).toHaveLength(1);
			} finally {
				session.kill('SIGKILL');
			}
		});
	}
});
