/**
 * Durable means AOF. redis-server killed with SIGKILL right after a burst of acknowledged events
 * and started again on the same data: with `appendonly yes` not one is lost, and a worker started
 * after the restart answers each exactly once. With snapshots only, serve refuses to start (and
 * runs with --allow-volatile-redis, warning on every status line); an evicting maxmemory-policy
 * makes /readyz not ready, naming the setting and the command that fixes it.
 */
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {Redis} from 'ioredis';
import {request} from 'undici';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {maskUrl} from '../../../source/format/secret.js';
import {openRedisBackend} from '../../../source/receiver/redis/index.js';
import {startCli} from '../../support/cli.js';
import {startPlatform, type TestPlatform} from '../../support/platform.js';
import {hasRedisServer, redisSkipReason, startRedis, type TestRedis} from '../../support/redis.js';
import {waitFor} from '../../support/wait.js';
import {newEvent, recordingHandler, type Seen} from './events.js';

async function killed(redis: TestRedis): Promise<void> {
	const child = redis.process;
	if (child === undefined) {
		throw new Error('not a throwaway redis-server');
	}

	const exited = new Promise(resolve => child.once('exit', resolve));
	child.kill('SIGKILL');
	await exited;
}

describe.skipIf(redisSkipReason !== undefined || !hasRedisServer)('durable Redis: AOF', () => {
	for (const fsync of ['everysec', 'always']) {
		it(`keeps every acknowledged event across kill -9 of redis-server (appendfsync ${fsync}) and answers each once`, async () => {
			const dir = mkdtempSync(join(tmpdir(), 'platform-tui-aof-'));
			let redis = await startRedis({dir, appendonly: true, args: ['--appendfsync', fsync]});
			const port = redis.port ?? 0;
			const queueName = redis.queueName();
			const ids = Array.from({length: 200}, (_, index) => `evt_aof_${String(index)}`);
			try {
				const producer = await openRedisBackend({url: redis.url, queueName, checkDurability: true});
				expect(producer.durability).toMatchObject({state: 'persistent'});
				const acked = await Promise.all(ids.map(async id => producer.accept(newEvent(id))));
				expect(acked.every(result => result === 'stored')).toBe(true);
				await killed(redis);
				await producer.close();

				redis = await startRedis({dir, appendonly: true, port, args: ['--appendfsync', fsync]});
				const replica = await openRedisBackend({url: redis.url, queueName});
				try {
					const held = await Promise.all(ids.map(async id => replica.holds?.(id)));
					expect(held.filter(value => value !== true)).toHaveLength(0);
					const seen: Seen[] = [];
					await replica.start(recordingHandler(seen), {concurrency: 8});
					await waitFor(() => seen.length >= ids.length && replica.active() === 0, {what: 'every event answered'});
					await waitFor(async () => (await replica.stats()).queue?.completed === ids.length, {what: 'every job completed'});
					expect(seen.map(item => item.id).sort()).toEqual([...ids].sort());
				} finally {
					await replica.close();
				}
			} finally {
				await redis.stop();
				rmSync(dir, {recursive: true, force: true});
			}
		});
	}
});

describe.skipIf(redisSkipReason !== undefined || !hasRedisServer)('serve on a Redis that may lose acknowledged events', () => {
	let platform: TestPlatform;

	beforeAll(async () => {
		platform = await startPlatform();
	});

	afterAll(async () => {
		await platform.close();
	});

	it('refuses to start on snapshots only, naming appendonly and the command that fixes it', async () => {
		const redis = await startRedis({forceLocal: true, args: ['--save', '3600 1 300 100 60 10000']});
		try {
			const run = startCli(['serve', '--redis', redis.url, '--port', '0'], {env: platform.env()});
			const code = await run.closed;
			expect(code).toBe(1);
			expect(run.stderr()).toContain(`Redis at ${maskUrl(redis.url)} may lose acknowledged events: appendonly no: RDB snapshots only (save 3600 1 300 100 60 10000)`);
			expect(run.stderr()).toContain('redis-cli CONFIG SET appendonly yes && redis-cli CONFIG REWRITE');
			expect(run.stderr()).toContain('--allow-volatile-redis');
		} finally {
			await redis.stop();
		}
	});

	it('with --allow-volatile-redis runs and warns on every status line, plain and NDJSON', async () => {
		const redis = await startRedis({forceLocal: true, args: ['--save', '3600 1']});
		try {
			const plain = startCli(['serve', '--redis', redis.url, '--port', '0', '--allow-volatile-redis'], {env: platform.env()});
			try {
				const status = await waitFor(() => plain.stdout().split('\n').find(line => line.includes(' status ')), {what: `a status line (stderr: ${plain.stderr()})`});
				expect(status).toContain('status ready · warning: Redis at');
				expect(status).toContain('appendonly no: RDB snapshots only (save 3600 1)');
			} finally {
				plain.child.kill('SIGTERM');
				await plain.closed;
			}

			const json = startCli(['serve', '--redis', redis.url, '--port', '0', '--allow-volatile-redis', '--json'], {env: platform.env()});
			try {
				const lines = await waitFor(() => {
					const records = json.stdout().split('\n').filter(line => line.startsWith('{')).map(line => JSON.parse(line) as Record<string, unknown>);
					return records.some(record => record.type === 'status') ? records : undefined;
				}, {what: `an NDJSON status record (stderr: ${json.stderr()})`});
				expect(lines.find(record => record.type === 'listening')).toMatchObject({redisPersistence: 'off', redisWarning: expect.stringContaining('CONFIG SET appendonly yes') as unknown});
				expect(lines.find(record => record.type === 'status')).toMatchObject({status: 'ready', warning: expect.stringContaining('appendonly no') as unknown});
			} finally {
				json.child.kill('SIGTERM');
				await json.closed;
			}
		} finally {
			await redis.stop();
		}
	});

	it('maxmemory-policy allkeys-lru: /readyz is not ready, naming the setting and the fix', async () => {
		const redis = await startRedis({forceLocal: true, appendonly: true});
		const raw = new Redis(redis.url);
		const run = startCli(['serve', '--redis', redis.url, '--port', '0', '--admin-port', '0', '--json'], {env: platform.env()});
		try {
			const listening = await waitFor(() => run.stdout().split('\n').find(line => line.includes('"listening"')), {what: `serve to listen (stderr: ${run.stderr()})`});
			const admin = (JSON.parse(listening) as {adminUrl: string}).adminUrl;
			const readyz = async () => {
				const response = await request(`${admin}/readyz`);
				return {status: response.statusCode, body: await response.body.json() as {reasons?: string[]}};
			};

			await waitFor(async () => (await readyz()).status, {until: status => status === 200, what: 'ready with AOF and noeviction'});
			// Someone switches the policy while serve runs: the next check finds it.
			await raw.config('SET', 'maxmemory-policy', 'allkeys-lru');
			const unready = await waitFor(readyz, {until: answer => answer.status === 503, intervalMs: 200, what: 'not ready with allkeys-lru'});
			expect(unready.body.reasons?.join('\n')).toContain('maxmemory-policy allkeys-lru: Redis may evict queued events when it runs out of memory (fix: redis-cli CONFIG SET maxmemory-policy noeviction && redis-cli CONFIG REWRITE)');
		} finally {
			run.child.kill('SIGTERM');
			await run.closed;
			raw.disconnect();
			await redis.stop();
		}
	});
});
