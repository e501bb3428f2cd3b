/**
 * Six `keys rotate --yes` processes at once (built CLI) against one config file: the lock makes
 * them rotate one after another, each rotating the key the one before stored, so after the short
 * overlap the stored key still works. Repeated for several rounds, one test each.
 *
 * Nothing here depends on how fast the machine is: the platform runs on a manual clock, so the
 * overlap passes when the test moves the clock (not while six processes queue for the lock on a
 * loaded machine), and each round waits for its processes to exit. Its time limit only catches a
 * hang, and grows with the processes it starts.
 */
import {mkdtempSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {ConfigStore} from '../../source/config/store.js';
import {ManualClock, type LocalPlatform} from '../../source/local-platform/index.js';
import {startPlatform} from '../support/platform.js';
import {PlatformApiError} from '../../source/platform/errors.js';
import {PlatformClient} from '../../source/platform/client.js';
import {runCli} from '../support/cli.js';
import {hangLimitMs} from '../support/wait.js';

const processes = 6;
const rounds = Number(process.env.RACE_ROUNDS ?? 3);
const overlapMs = 400;

type Rotated = {type: string; key: string; previousKey: string; stored: boolean; expiresAt: string};

describe('concurrent key rotations (built CLI)', () => {
	let platform: LocalPlatform;
	const clock = new ManualClock();
	let store: ConfigStore;
	let env: Record<string, string>;

	beforeAll(async () => {
		platform = (await startPlatform({keyOverlapMs: overlapMs, clock})).platform;
		const dir = mkdtempSync(join(tmpdir(), 'platform-tui-keys-race-'));
		store = new ConfigStore({PLATFORM_TUI_CONFIG_DIR: dir});
		await store.set('apiKey', platform.apiKey);
		env = {PLATFORM_TUI_CONFIG_DIR: dir, PLATFORM_BASE_URL: platform.baseUrl, PLATFORM_APP_ID: platform.appId, PLATFORM_USER_ID: platform.userId, PLATFORM_COMPANY_ID: platform.companyId, PLATFORM_ASSISTANT_ID: platform.assistantId};
	});

	afterAll(async () => {
		await platform.close();
	});

	for (let round = 1; round <= rounds; round++) {
		it(`round ${round}: ${processes} rotations at once leave a stored key that works after the overlap`, async () => {
			const first = store.get('apiKey') ?? '';
			const results = await Promise.all(Array.from({length: processes}, async () => runCli(['keys', 'rotate', '--yes', '--json'], {env, timeoutMs: processes * hangLimitMs})));
			for (const result of results) {
				expect(result.stderr).toBe('');
				expect(result.code).toBe(0);
			}

			// Each rotation rotated the key the one before it stored: one chain from the first key.
			const rotated = results.map(result => JSON.parse(result.stdout.split('\n')[0] ?? '') as Rotated);
			expect(rotated.every(entry => entry.type === 'rotation' && entry.stored)).toBe(true);
			const newKeys = new Set(rotated.map(entry => entry.key));
			const previous = rotated.map(entry => entry.previousKey);
			expect(newKeys.size).toBe(processes);
			expect(new Set(previous).size).toBe(processes);
			expect(previous.filter(key => key === `…${first.slice(-4)}`)).toHaveLength(1);
			const stored = store.get('apiKey') ?? '';
			expect(stored).toBe(platform.apiKey);
			expect(previous).not.toContain(`…${stored.slice(-4)}`);

			// Past every overlap (the clock moved past the latest expiry), a real call with the stored
			// key succeeds and the first key is refused.
			const latest = Math.max(...rotated.map(entry => Date.parse(entry.expiresAt)));
			expect(latest).toBe(clock.now() + overlapMs);
			clock.advance(latest + 1 - clock.now());
			const withStored = new PlatformClient({...platform.settings(), apiKey: stored, retries: 0});
			const withFirst = new PlatformClient({...platform.settings(), apiKey: first, retries: 0});
			try {
				await expect(withStored.getSpace(platform.assistantId)).resolves.toMatchObject({name: expect.any(String) as unknown});
				const refused = await withFirst.getSpace(platform.assistantId).then(() => undefined, (error: unknown) => error);
				expect(refused).toBeInstanceOf(PlatformApiError);
				expect((refused as PlatformApiError).status).toBe(401);
			} finally {
				await withStored.close();
				await withFirst.close();
			}
		}, processes * hangLimitMs + 10_000);
	}
});
