/**
 * A 3-master Redis Cluster (slots assigned by the test): the queue's keys share one hash-tagged
 * slot (`{platform-tui}`), and two replicas of the receiver's backend, both taking deliveries of
 * the same events, answer every event exactly once.
 */
import {Redis} from 'ioredis';
import {describe, expect, it} from 'vitest';
import {buildTestEvent} from '../../../source/receiver/intake/test-event.js';
import {openRedisBackend} from '../../../source/receiver/redis/index.js';
import {startCli} from '../../support/cli.js';
import {startPlatform} from '../../support/platform.js';
import {sendSigned} from '../helpers.js';
import {hasRedisServer, redisSkipReason} from '../../support/redis.js';
import {waitFor} from '../../support/wait.js';
import {newEvent, recordingHandler, type Seen} from './events.js';
import {startCluster} from './topology.js';

describe.skipIf(redisSkipReason !== undefined || !hasRedisServer)('serve --redis on a Redis Cluster', () => {
	it('the built serve takes a redis+cluster:// URL, checks every primary, and acknowledges events', async () => {
		const cluster = await startCluster(3);
		const platform = await startPlatform();
		const run = startCli(['serve', '--redis', cluster.url, '--port', '0', '--json'], {env: platform.env()});
		try {
			const listening = await waitFor(() => run.stdout().split('\n').find(line => line.includes('"listening"')), {what: `serve to listen (stderr: ${run.stderr()})`});
			const record = JSON.parse(listening) as {webhookUrl: string; redis: string; redisPersistence: string};
			expect(record).toMatchObject({redis: cluster.url, redisPersistence: 'on'});
			const {platform: local} = platform;
			const event = buildTestEvent('user-message', {userId: local.userId, companyId: local.companyId});
			expect((await sendSigned(record.webhookUrl, event, local.endpointSecret)).status).toBe(200);
			expect((await sendSigned(record.webhookUrl, event, local.endpointSecret)).status).toBe(200);
			await waitFor(() => run.stdout().includes(event.id), {what: `the event in the log (${run.stdout()})`});
		} finally {
			run.child.kill('SIGTERM');
			await run.closed;
			await platform.close();
			await cluster.stop();
		}
	});


	it('two replicas answer every event exactly once, with every key of the queue in one slot', async () => {
		const cluster = await startCluster(3);
		const seen: Seen[] = [];
		const replicas = [
			await openRedisBackend({url: cluster.url, queueName: 'events', checkDurability: true}),
			await openRedisBackend({url: cluster.url, queueName: 'events'}),
		];
		try {
			expect(replicas[0]?.durability).toMatchObject({state: 'persistent'});
			for (const replica of replicas) {
				await replica.start(recordingHandler(seen), {concurrency: 4});
			}

			const ids = Array.from({length: 120}, (_, index) => `evt_cluster_${String(index)}`);
			// Every event is delivered to both replicas (a redelivery, or two load-balanced copies).
			const results = await Promise.all(ids.flatMap(id => replicas.map(async replica => replica.accept(newEvent(id)))));
			// Two replicas racing on one id may both say `stored`: BullMQ keeps one job, run once.
			expect(new Set(results).size).toBeLessThanOrEqual(2);
			expect(results.filter(result => result === 'stored').length).toBeGreaterThanOrEqual(ids.length);
			await waitFor(() => seen.length >= ids.length && replicas.every(replica => replica.active() === 0), {what: 'every event answered'});
			await waitFor(async () => (await replicas[0]?.stats())?.queue?.completed === ids.length, {what: 'every job completed'});
			expect(seen.map(item => item.id).sort()).toEqual([...ids].sort());
			expect(await replicas[1]?.get('evt_cluster_7')).toMatchObject({status: 'answered'});
			// The queue's keys (and the ids held beside them) live on one node: one hash-tagged slot.
			const holders = await Promise.all(cluster.nodes.map(async node => {
				const raw = new Redis({host: '127.0.0.1', port: node.port});
				try {
					return (await raw.keys('{platform-tui}:events:*')).length;
				} finally {
					raw.disconnect();
				}
			}));
			expect(holders.filter(count => count > 0)).toHaveLength(1);
		} finally {
			for (const replica of replicas) {
				await replica.close();
			}

			await cluster.stop();
		}
	});
});
