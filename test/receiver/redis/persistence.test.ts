/**
 * serve run with --allow-volatile-redis on a Redis that keeps no data across a restart
 * (`appendonly no` and an empty `save`) warns at start-up: on the plain log, as an NDJSON record,
 * in the listening line and in /metrics. A Redis with AOF gets no warning; one that forbids CONFIG
 * (managed services rename it) gets "could not check" with what to check by hand, and serve still
 * starts.
 */
import {request} from 'undici';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {maskUrl} from '../../../source/format/secret.js';
import {openRedisBackend} from '../../../source/receiver/redis/index.js';
import {startCli} from '../../support/cli.js';
import {startPlatform, type TestPlatform} from '../../support/platform.js';
import {hasRedisServer, redisSkipReason, startRedis, type StartRedisOptions} from '../../support/redis.js';
import {waitFor} from '../../support/wait.js';

type Started = {stdout: string; stderr: string; metrics?: string};

/** Starts the built `serve --redis url`, waits for it to listen (and scrapes /metrics with --json), then stops it. */
async function serveOnce(platform: TestPlatform, url: string, json: boolean, extra: string[] = []): Promise<Started> {
	const run = startCli(['serve', '--redis', url, '--port', '0', ...extra, ...(json ? ['--json', '--admin-port', '0'] : [])], {env: platform.env()});
	try {
		// NDJSON on stdout; the plain start-up line (and a start-up warning, written with it) on stderr.
		const listening = await waitFor(() => (json ? run.stdout() : run.stderr()).split('\n').find(line => /"listening"|Listening on/.test(line)), {what: `serve to listen (stderr: ${run.stderr()})`});
		let metrics: string | undefined;
		if (json) {
			const admin = (JSON.parse(listening) as {adminUrl: string}).adminUrl;
			const response = await request(`${admin}/metrics`);
			metrics = await response.body.text();
		}

		return {stdout: run.stdout(), stderr: run.stderr(), ...(metrics === undefined ? {} : {metrics})};
	} finally {
		run.child.kill('SIGTERM');
		await run.closed;
	}
}

function records(stdout: string): Array<Record<string, unknown>> {
	return stdout.split('\n').filter(line => line.startsWith('{')).map(line => JSON.parse(line) as Record<string, unknown>);
}

describe.skipIf(redisSkipReason !== undefined || !hasRedisServer)('Redis persistence at start-up', () => {
	let platform: TestPlatform;

	beforeAll(async () => {
		platform = await startPlatform();
	});

	afterAll(async () => {
		await platform.close();
	});

	async function withRedis(options: StartRedisOptions, run: (url: string) => Promise<void>): Promise<void> {
		const redis = await startRedis({forceLocal: true, ...options});
		try {
			await run(redis.url);
		} finally {
			await redis.stop();
		}
	}

	it('the backend finds persistence off, snapshots only, AOF on, or cannot check when CONFIG is renamed away', async () => {
		const durability = async (url: string) => {
			const backend = await openRedisBackend({url, checkDurability: true});
			try {
				return backend.durability;
			} finally {
				await backend.close();
			}
		};

		await withRedis({}, async url => {
			expect(await durability(url)).toMatchObject({state: 'volatile', detail: expect.stringContaining('appendonly no: no persistence at all (save "")') as unknown, problems: [expect.objectContaining({setting: 'appendonly no'})]});
			// Only serve asks: the events commands open the backend without the check.
			const reader = await openRedisBackend({url});
			expect(reader.durability).toBeUndefined();
			await reader.close();
		});
		await withRedis({appendonly: true}, async url => {
			expect(await durability(url)).toEqual({state: 'persistent', detail: 'AOF (appendonly yes, appendfsync everysec), maxmemory-policy noeviction'});
		});
		await withRedis({args: ['--save', '3600 1']}, async url => {
			// Snapshots are no durability for an acknowledged event: a crash loses what came since.
			expect(await durability(url)).toMatchObject({state: 'volatile', detail: expect.stringContaining('appendonly no: RDB snapshots only (save 3600 1)') as unknown});
		});
		await withRedis({args: ['--rename-command', 'CONFIG', '']}, async url => {
			expect(await durability(url)).toMatchObject({state: 'unknown', reason: expect.stringContaining('CONFIG GET was refused') as unknown});
		});
	});

	it('serve --allow-volatile-redis warns at start-up, plain and NDJSON and in /metrics, when Redis has persistence off', async () => {
		await withRedis({}, async url => {
			const plain = await serveOnce(platform, url, false, ['--allow-volatile-redis']);
			const warnings = plain.stderr.split('\n').filter(line => line.includes('warning:'));
			expect(plain.stdout).not.toContain('warning:');
			expect(warnings).toHaveLength(1);
			expect(warnings[0]).toContain(`Redis at ${maskUrl(url)} may lose acknowledged events: appendonly no: no persistence at all (save ""): a restart of redis-server loses every acknowledged event still in it (fix: redis-cli CONFIG SET appendonly yes && redis-cli CONFIG REWRITE)`);

			const json = await serveOnce(platform, url, true, ['--allow-volatile-redis']);
			const lines = records(json.stdout);
			expect(lines.find(line => line.type === 'listening')).toMatchObject({redisPersistence: 'off'});
			const warning = lines.filter(line => line.type === 'warning');
			expect(warning).toEqual([expect.objectContaining({code: 'redis-persistence-off', message: expect.stringContaining('may lose acknowledged events') as unknown})]);
			expect(json.metrics).toContain('platform_tui_redis_persistence{state="off"} 1');
			expect(json.metrics).toContain('platform_tui_redis_persistence{state="on"} 0');
		});
	});

	it('serve says nothing with AOF on, and "could not check" (still starting) when CONFIG is forbidden', async () => {
		await withRedis({appendonly: true}, async url => {
			const plain = await serveOnce(platform, url, false);
			expect(plain.stderr).not.toContain('warning:');
			const json = await serveOnce(platform, url, true);
			expect(records(json.stdout).find(line => line.type === 'listening')).toMatchObject({redisPersistence: 'on'});
			expect(records(json.stdout).filter(line => line.type === 'warning')).toEqual([]);
			expect(json.metrics).toContain('platform_tui_redis_persistence{state="on"} 1');
		});
		await withRedis({args: ['--rename-command', 'CONFIG', '']}, async url => {
			const plain = await serveOnce(platform, url, false);
			expect(plain.stderr).toContain(`warning: Could not check whether Redis at ${maskUrl(url)} keeps acknowledged events (CONFIG GET was refused:`);
			expect(plain.stderr).toContain('check by hand that AOF is on (appendonly yes) and maxmemory-policy is noeviction');
			const json = await serveOnce(platform, url, true);
			expect(records(json.stdout).find(line => line.type === 'warning')).toMatchObject({code: 'redis-persistence-unknown'});
		});
	});
});
