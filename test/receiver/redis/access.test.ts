/**
 * Redis URLs with an ACL user and password, and `rediss://` (TLS) with a private CA: the backend
 * connects with them, and `serve --redis` (the built CLI) never prints the password.
 *
 * Trusting a private CA: `rediss://` goes through Node's `tls.connect`, whose default trust store
 * includes the file named by NODE_EXTRA_CA_CERTS (read when the process starts). So a replica
 * trusts a self-signed Redis with `NODE_EXTRA_CA_CERTS=/path/ca.pem`; in-process the backend
 * takes `tls: {ca}`.
 */
import {readFileSync} from 'node:fs';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {openRedisBackend, RedisError} from '../../../source/receiver/redis/index.js';
import {maskUrl} from '../../../source/format/secret.js';
import {startCli} from '../../support/cli.js';
import {startPlatform, type TestPlatform} from '../../support/platform.js';
import {hasRedisServer, redisHasTls, redisSkipReason, startRedis} from '../../support/redis.js';
import {waitFor} from '../../support/wait.js';
import {newEvent} from './events.js';

const ownServer = redisSkipReason === undefined && hasRedisServer;
const tlsBuild = ownServer && redisHasTls();
if (ownServer && !tlsBuild) {
	console.log('Redis TLS test skipped: this redis-server build has no TLS support.');
}

const password = 'acl-pass-word-9876';

/** Starts `serve --redis url` (built CLI); resolves with everything it printed once it listens, then stops it. */
async function serveOutput(platform: TestPlatform, url: string, json: boolean, env: Record<string, string | undefined> = {}): Promise<{stdout: string; stderr: string; code: number | null}> {
	const run = startCli(['serve', '--redis', url, '--port', '0', ...(json ? ['--json'] : [])], {env: platform.env(env)});
	try {
		await waitFor(() => /"listening"/.test(run.stdout()) || /Listening on/.test(run.stderr()) || run.child.exitCode !== null, {what: `serve to listen (stderr: ${run.stderr()})`});
	} finally {
		run.child.kill('SIGTERM');
	}

	const code = await run.closed;
	return {stdout: run.stdout(), stderr: run.stderr(), code};
}

describe.skipIf(!ownServer)('redis access: ACL users and TLS', () => {
	let platform: TestPlatform;

	beforeAll(async () => {
		platform = await startPlatform();
	});

	afterAll(async () => {
		await platform.close();
	});

	it('connects with an ACL user and password in the URL, refuses a wrong user, and serve masks the URL', async () => {
		const own = await startRedis({user: 'replica', password, forceLocal: true, appendonly: true});
		try {
			expect(own.url).toContain(`replica:${password}@`);
			const backend = await openRedisBackend({url: own.url, queueName: own.queueName()});
			try {
				expect(await backend.accept(newEvent('evt_acl'))).toBe('stored');
				expect((await backend.get('evt_acl'))?.status).toBe('received');
			} finally {
				await backend.close();
			}

			const wrongUser: unknown = await openRedisBackend({url: own.url.replace('replica:', 'intruder:')}).catch((error: unknown) => error);
			expect((wrongUser as RedisError).code).toBe('redis-auth');
			expect(JSON.stringify((wrongUser as RedisError).data)).not.toContain(password);

			const plain = await serveOutput(platform, own.url, false);
			expect(plain.stderr).toContain(`events in redis ${maskUrl(own.url)}`);
			const json = await serveOutput(platform, own.url, true);
			const listening = json.stdout.split('\n').filter(Boolean).map(line => JSON.parse(line) as Record<string, unknown>).find(line => line.type === 'listening');
			expect(listening?.redis).toBe(maskUrl(own.url));
			for (const output of [plain, json]) {
				expect(`${output.stdout}${output.stderr}`).not.toContain(password);
			}
		} finally {
			await own.stop();
		}
	});

	it.skipIf(!tlsBuild)('connects over rediss:// to a server with a self-signed certificate, trusted through NODE_EXTRA_CA_CERTS', async () => {
		const own = await startRedis({tls: true, user: 'replica', password, appendonly: true});
		try {
			const caFile = own.caFile ?? '';
			expect(own.url.startsWith('rediss://')).toBe(true);
			// Without the CA the handshake fails: the certificate is not trusted.
			const untrusted: unknown = await openRedisBackend({url: own.url, connectTimeoutMs: 3000}).catch((error: unknown) => error);
			expect((untrusted as RedisError).code).toBe('redis-unreachable');
			expect((untrusted as RedisError).data.reason).toMatch(/self.signed|certificate/i);

			const backend = await openRedisBackend({url: own.url, queueName: own.queueName(), tls: {ca: readFileSync(caFile)}});
			try {
				expect(await backend.accept(newEvent('evt_tls'))).toBe('stored');
				expect((await backend.get('evt_tls'))?.id).toBe('evt_tls');
			} finally {
				await backend.close();
			}

			// The built CLI trusts the CA through NODE_EXTRA_CA_CERTS, and fails without it.
			const trusted = await serveOutput(platform, own.url, true, {NODE_EXTRA_CA_CERTS: caFile});
			const listening = trusted.stdout.split('\n').filter(Boolean).map(line => JSON.parse(line) as Record<string, unknown>).find(line => line.type === 'listening');
			expect(listening?.redis, trusted.stderr).toBe(maskUrl(own.url));
			expect(`${trusted.stdout}${trusted.stderr}`).not.toContain(password);

			const refused = await serveOutput(platform, own.url, false);
			expect(refused.code).not.toBe(0);
			expect(refused.stderr).toMatch(/certificate/i);
			expect(refused.stderr).toContain(maskUrl(own.url));
			expect(`${refused.stdout}${refused.stderr}`).not.toContain(password);
		} finally {
			await own.stop();
		}
	});
});
