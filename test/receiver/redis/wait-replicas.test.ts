/**
 * --redis-wait-replicas N: an event is acknowledged only once WAIT confirms N replicas have it;
 * without a replica answering in time, `accept` fails (the receiver answers 503) and a redelivery
 * is acknowledged only once a replica confirms.
 */
import {Redis} from 'ioredis';
import {describe, expect, it} from 'vitest';
import {BackendUnavailableError} from '../../../source/receiver/store/backend.js';
import {openRedisBackend} from '../../../source/receiver/redis/index.js';
import {hasRedisServer, redisSkipReason, startRedis} from '../../support/redis.js';
import {waitFor} from '../../support/wait.js';
import {newEvent} from './events.js';

describe.skipIf(redisSkipReason !== undefined || !hasRedisServer)('redis WAIT before the ack', () => {
	it('acknowledges once a replica confirms, and fails (503) while none does', async () => {
		const primary = await startRedis({forceLocal: true, appendonly: true});
		const queueName = primary.queueName();
		const backend = await openRedisBackend({url: primary.url, queueName, waitReplicas: 1, waitTimeoutMs: 200});
		let replica = await startRedis({forceLocal: true, appendonly: true, args: ['--replicaof', '127.0.0.1', String(primary.port)]});
		const raw = new Redis(primary.url);
		try {
			await waitFor(async () => (await raw.info('replication')).includes('state=online'), {what: 'the replica to attach'});
			// An attached replica acknowledges what it got about once a second: on a loaded machine a
			// first WAIT of 200 ms may end before it does (503), and the redelivery is acknowledged.
			expect(await waitFor(async () => backend.accept(newEvent('evt_wait_1')).catch(() => undefined), {what: 'the first event acknowledged'})).toMatch(/^(stored|duplicate)$/);

			await replica.stop();
			await waitFor(async () => (await raw.info('replication')).includes('connected_slaves:0'), {what: 'the primary to see the replica gone'});
			const refused = await backend.accept(newEvent('evt_wait_2')).catch((error: unknown) => error);
			expect(refused).toBeInstanceOf(BackendUnavailableError);
			expect((refused as Error).message).toContain('only 0 of 1 replicas confirmed it within 200 ms (--redis-wait-replicas)');
			// The redelivery finds the job, and is still refused until a replica has it.
			await expect(backend.accept(newEvent('evt_wait_2'))).rejects.toBeInstanceOf(BackendUnavailableError);

			replica = await startRedis({forceLocal: true, appendonly: true, args: ['--replicaof', '127.0.0.1', String(primary.port)]});
			await waitFor(async () => (await raw.info('replication')).includes('state=online'), {what: 'a replica to attach again'});
			expect(await waitFor(async () => backend.accept(newEvent('evt_wait_2')).catch(() => undefined), {what: 'the redelivery acknowledged'})).toBe('duplicate');
		} finally {
			raw.disconnect();
			await backend.close();
			await replica.stop();
			await primary.stop();
		}
	});
});
