import {mkdtempSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {setTimeout as sleep} from 'node:timers/promises';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {apiKeySupplier} from '../../source/config/resolve.js';
import {ConfigStore} from '../../source/config/store.js';
import {systemClock, type LocalPlatform, type PlatformClock} from '../../source/local-platform/index.js';
import {startPlatform} from '../support/platform.js';
import {PlatformClient} from '../../source/platform/client.js';
import {runCli, startCli, type CliProcess} from '../support/cli.js';
import {waitFor} from '../support/wait.js';
import {leakedKeys} from './helpers.js';
import {defined} from '../support/defined.js';

/** The calls the receiver makes while answering an event. */
const receiverPaths = /^\/(message-log|search\/search|openai\/chat\/completions|messages\/)/;
const bearerOf = (headers: Record<string, string>) => headers.authorization?.replace(/^Bearer\s+/i, '') ?? '';

type Serve = CliProcess & {url: string};

/**
 * Starts the built `platform-tui serve --port 0 --json` and waits for its `listening` line. Its
 * tolerance takes the platform's clock moved past the overlap (events signed an hour ahead).
 */
async function startServe(env: Record<string, string>): Promise<Serve> {
	const serve = startCli(['serve', '--port', '0', '--json', '--drain-timeout', '2', '--tolerance', '86400'], {env});
	const line = await waitFor(() => {
		if (serve.child.exitCode !== null) {
			throw new Error(`serve exited with ${serve.child.exitCode}: ${serve.stderr()}`);
		}

		return serve.stdout().split('\n').find(candidate => candidate.includes('"listening"'));
	}, {what: 'serve to listen', intervalMs: 25});
	const {url} = JSON.parse(line) as {url: string};
	return {...serve, url};
}

describe('a running serve during a key rotation made by another process', () => {
	let platform: LocalPlatform;
	let serve: Serve | undefined;
	// The overlap ends when the test moves the platform's clock past it, never while the steps
	// before run on a loaded machine: an hour no test run comes near, then a jump of an hour.
	const overlapMs = 3_600_000;
	const moved = {ms: 0};
	const clock: PlatformClock = {now: () => Date.now() + moved.ms, sleep: async (ms, signal) => systemClock.sleep(ms, signal)};

	beforeAll(async () => {
		platform = (await startPlatform({keyOverlapMs: overlapMs, assistantStepMs: 5, clock})).platform;
	});

	afterAll(async () => {
		if (serve && serve.child.exitCode === null) {
			const exited = new Promise(resolve => {
				serve?.child.once('close', resolve);
			});
			serve.child.kill('SIGTERM');
			await Promise.race([exited, sleep(5000)]);
			serve.child.kill('SIGKILL');
		}

		await platform.close();
	});

	it('keeps answering every event during and after the rotation, with zero failed platform calls', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'platform-tui-keys-serve-'));
		const store = new ConfigStore({PLATFORM_TUI_CONFIG_DIR: dir});
		const firstKey = platform.apiKey;
		await store.set('apiKey', firstKey);
		// No PLATFORM_API_KEY: both processes read the key from the shared config file.
		const env = {
			PLATFORM_TUI_CONFIG_DIR: dir,
			PLATFORM_BASE_URL: platform.baseUrl,
			PLATFORM_APP_ID: platform.appId,
			PLATFORM_USER_ID: platform.userId,
			PLATFORM_COMPANY_ID: platform.companyId,
			PLATFORM_ASSISTANT_ID: platform.assistantId,
			PLATFORM_ENDPOINT_SECRET: platform.endpointSecret,
		};
		serve = await startServe(env);
		platform.setWebhookUrl(`${serve.url}/webhook`);

		// The user side: chats and messages, with the key read through the same supplier.
		const user = new PlatformClient({...platform.settings(), apiKey: apiKeySupplier({env: {PLATFORM_TUI_CONFIG_DIR: dir}, store, fallback: firstKey}), retries: 0});
		const assistantMessages: string[] = [];
		const ask = async (text: string) => {
			const chat = await user.createChat({title: `rotation ${text}`, assistantId: platform.assistantId});
			await user.createSpaceMessage({assistantId: platform.assistantId, chatId: chat.id, text});
			const latest = await user.getLatestMessage(chat.id);
			expect(latest.role).toBe('ASSISTANT');
			const id = defined(latest.id, 'the latest message id');
			assistantMessages.push(id);
			return id;
		};

		const answered = (id: string) => {
			const message = platform.message(id);
			return message !== undefined && message.stoppedStreamingAt !== null && message.stoppedStreamingAt !== undefined;
		};

		try {
			// Before: a few events answered with the first key.
			const before = await Promise.all([1, 2, 3].map(async index => ask(`before ${index}`)));
			await waitFor(() => before.every(id => answered(id)), {what: 'the first answers', intervalMs: 25});

			// During: keep events coming while a second process rotates the key.
			const phase = {rotating: true};
			const during = (async () => {
				let index = 0;
				while (phase.rotating && index < 200) {
					index++;
					await Promise.all([ask(`during ${index}a`), ask(`during ${index}b`)]);
					await sleep(20);
				}

				return index;
			})();
			const rotation = await runCli(['keys', 'rotate', '--yes'], {env});
			phase.rotating = false;
			const rounds = await during;
			expect(rotation.code).toBe(0);
			expect(rounds).toBeGreaterThan(0);
			const secondKey = platform.apiKey;
			expect(secondKey).not.toBe(firstKey);
			expect(store.get('apiKey')).toBe(secondKey);

			// Every event of the overlap answered, then the clock moves past it: the first key is dead,
			// and events must still be answered.
			await waitFor(() => assistantMessages.every(id => answered(id)), {what: 'the answers during the rotation', intervalMs: 25});
			const expiresAt = Date.parse(store.rotation().previousKeyExpiresAt ?? '');
			expect(expiresAt).toBeGreaterThan(0);
			moved.ms += expiresAt + 1 - clock.now();
			expect(clock.now()).toBeGreaterThan(expiresAt);

			const after = await Promise.all([1, 2, 3].map(async index => ask(`after ${index}`)));
			await waitFor(() => assistantMessages.every(id => answered(id)), {what: 'every answer', intervalMs: 25});

			// Every event got the receiver's answer: both logs COMPLETED, nothing FAILED.
			for (const id of assistantMessages) {
				const logs = platform.messageLogs(id);
				expect(logs.map(log => log.status), `logs of ${id}`).toEqual(['COMPLETED', 'COMPLETED']);
				expect(platform.message(id)?.text ?? '').not.toContain('(local platform)');
			}

			// Every delivery succeeded on its first attempt, and no platform call failed.
			const deliveries = platform.deliveries;
			expect(deliveries.length).toBe(assistantMessages.length * 2);
			expect(deliveries.filter(delivery => delivery.state !== 'delivered')).toEqual([]);
			expect(deliveries.filter(delivery => delivery.attempts.length !== 1)).toEqual([]);
			const requests = platform.requests;
			// The readiness probe reads the messages of a chat that does not exist: its 404 proves the key works.
			const probe = (request: {method: string; path: string; status: number}) => request.method === 'GET' && request.path === '/messages' && request.status === 404;
			expect(requests.filter(request => request.status >= 400 && !probe(request)).map(request => `${request.method} ${request.path} → ${request.status}`)).toEqual([]);

			// The receiver moved from the first key to the second, and never used the first after it expired.
			const receiverCalls = requests.filter(request => receiverPaths.test(request.path));
			expect(receiverCalls.length).toBeGreaterThanOrEqual(assistantMessages.length * 5);
			const keysUsed = receiverCalls.map(request => bearerOf(request.headers));
			expect(keysUsed.filter(key => key === firstKey).length).toBeGreaterThanOrEqual(before.length * 5);
			expect(keysUsed.filter(key => key === secondKey).length).toBeGreaterThanOrEqual(after.length * 5);
			expect(new Set(keysUsed)).toEqual(new Set([firstKey, secondKey]));
			const lastWithFirst = Math.max(...receiverCalls.filter(request => bearerOf(request.headers) === firstKey).map(request => Date.parse(request.at)));
			const firstWithSecond = Math.min(...receiverCalls.filter(request => bearerOf(request.headers) === secondKey).map(request => Date.parse(request.at)));
			expect(lastWithFirst).toBeLessThan(expiresAt);
			expect(firstWithSecond).toBeLessThan(expiresAt);
			for (const id of after) {
				const forMessage = receiverCalls.filter(request => request.path === `/messages/${id}`);
				expect(forMessage.map(request => bearerOf(request.headers))).toEqual([secondKey]);
			}

			// No full key in anything either process printed.
			expect(leakedKeys([serve.stdout(), serve.stderr(), rotation.stdout, rotation.stderr], [firstKey, secondKey])).toEqual([]);
		} finally {
			await user.close();
		}
	});
});
