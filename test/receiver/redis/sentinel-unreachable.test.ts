/**
 * A Sentinel URL whose Sentinels do not answer. ioredis goes round the Sentinels for as long as its
 * retry strategy says, and the first connect waits inside that: with no end to it, `serve --redis
 * redis+sentinel://…` hung at start-up, printing nothing, and ignored SIGTERM and Ctrl+C. It now
 * fails as an unreachable `redis://` does, once the connect timeout has passed.
 */
import {spawnSync} from 'node:child_process';
import {describe, expect, it} from 'vitest';
import {RedisError} from '../../../source/receiver/redis/errors.js';
import {openRedisBackend} from '../../../source/receiver/redis/index.js';
import {childEnv, cliPath} from '../../support/cli.js';
import {freePort} from '../../support/free-port.js';

/** Two loopback ports nothing listens on. */
async function silentSentinels(): Promise<string> {
	return `127.0.0.1:${String(await freePort())},127.0.0.1:${String(await freePort())}`;
}

describe('Sentinels that do not answer', () => {
	it('opening the backend fails as redis-unreachable, the password masked', async () => {
		const url = `redis+sentinel://:sentinel-password-0001@${await silentSentinels()}/mymaster`;
		const error: unknown = await openRedisBackend({url, connectTimeoutMs: 300}).catch((caught: unknown) => caught);
		expect(error).toBeInstanceOf(RedisError);
		expect((error as RedisError).code).toBe('redis-unreachable');
		expect(JSON.stringify((error as RedisError).data)).not.toContain('sentinel-password');
		expect((error as RedisError).data).toMatchObject({reason: expect.stringContaining('All sentinels are unreachable') as string});
	});

	it('serve --redis ends with one sentence and exit 1', async () => {
		const settings = {PLATFORM_BASE_URL: 'http://127.0.0.1:9', PLATFORM_API_KEY: 'sk_test_sentinel_0000', PLATFORM_APP_ID: 'app_1', PLATFORM_ENDPOINT_SECRET: 'whsec_sentinel'};
		const url = `redis+sentinel://${await silentSentinels()}/mymaster`;
		// The time limit only bounds a run that would otherwise never end (and ignore SIGTERM); it ends after the 5 s connect timeout.
		const result = spawnSync(process.execPath, [cliPath, 'serve', '--port', '0', '--redis', url], {encoding: 'utf8', env: childEnv(settings), timeout: 60_000, killSignal: 'SIGKILL'});
		expect(result.signal).toBeNull();
		expect(result.status).toBe(1);
		expect(result.stderr).toMatch(/^Error: Could not connect to Redis at redis\+sentinel:\/\/127\.0\.0\.1:\d+,127\.0\.0\.1:\d+\/mymaster \(All sentinels are unreachable/);
		expect(result.stderr.trim().split('\n')).toHaveLength(1);
	});
});
