/** MUST-SHOW: /readyz of a Redis-backed serve turns 503 while Redis is down and 200 once it is back. */
import {request} from 'undici';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {startCli} from '../../support/cli.js';
import {startPlatform, type TestPlatform} from '../../support/platform.js';
import {hasRedisServer, redisSkipReason, startRedis} from '../../support/redis.js';
import {waitFor} from '../../support/wait.js';

async function readyz(url: string): Promise<{status: number; body: Record<string, unknown>}> {
	const response = await request(`${url}/readyz`);
	return {status: response.statusCode, body: await response.body.json() as Record<string, unknown>};
}

describe.skipIf(!hasRedisServer)(`serve --redis --admin-port${redisSkipReason ? ` (${redisSkipReason})` : ''}`, () => {
	let platform: TestPlatform;

	beforeAll(async () => {
		platform = await startPlatform();
	});

	afterAll(async () => {
		await platform.close();
	});

	it('MUST-SHOW: /readyz is 503 while Redis is down and 200 again after it restarts', async () => {
		let redis = await startRedis({forceLocal: true, appendonly: true});
		const port = redis.port ?? 0;
		const run = startCli(['serve', '--redis', redis.url, '--port', '0', '--admin-port', '0', '--json'], {env: platform.env()});
		try {
			const listening = await waitFor(() => run.stdout().split('\n').find(line => line.includes('"listening"')), {what: `serve to listen (stderr: ${run.stderr()})`});
			const admin = (JSON.parse(listening) as {adminUrl: string}).adminUrl;
			await waitFor(async () => (await readyz(admin)).status, {until: status => status === 200, what: 'ready'});
			await redis.stop();
			const down = await waitFor(async () => readyz(admin), {until: answer => answer.status === 503, what: '503 with Redis down'});
			expect(down.body).toMatchObject({ready: false, reasons: [expect.stringContaining('store: Redis at')]});
			redis = await startRedis({port, appendonly: true});
			await waitFor(async () => (await readyz(admin)).status, {until: status => status === 200, intervalMs: 200, what: 'ready after Redis came back'});
		} finally {
			run.child.kill('SIGTERM');
			await run.closed;
			await redis.stop();
		}
	});
});
