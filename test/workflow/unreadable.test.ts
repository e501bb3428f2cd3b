import {chmodSync} from 'node:fs';
import path from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import type {LocalPlatform} from '../../source/local-platform/index.js';
import {platformEnv, startPlatform} from '../support/platform.js';
import {runUnprivileged, unprivilegedHow} from '../support/unprivileged.js';
import {makeFolder} from './helpers.js';

describe(`upload: a file the process cannot open (built CLI, ${unprivilegedHow})`, () => {
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
