/**
 * Sentinel: a primary with two replicas and a Sentinel. The primary is killed (SIGKILL) while
 * events arrive; Sentinel promotes a replica and the backend follows it on its own. Every
 * acknowledged event is answered exactly once and none is lost; deliveries fail (503) only while
 * no primary was known. The acks wait for one replica (`--redis-wait-replicas 1`): without it an
 * event acknowledged in the instant before the kill may not have reached the replica promoted.
 */
import {describe, expect, it} from 'vitest';
import {openRedisBackend} from '../../../source/receiver/redis/index.js';
import {hasRedisServer, redisSkipReason} from '../../support/redis.js';
import {waitFor} from '../../support/wait.js';
import {newEvent, recordingHandler, type Seen} from './events.js';
import {startSentinel} from './topology.js';

describe.skipIf(redisSkipReason !== undefined || !hasRedisServer)('serve --redis behind Sentinel', () => {
	it('the primary killed under load: the promoted replica takes over, every acknowledged event answered exactly once', async () => {
		const sentinel = await startSentinel(2);
		const seen: Seen[] = [];
		// The product's job lock (15 s): a failover (Sentinel's 1 s down-after, then the promotion)
		// must not outlast the lock of a job being answered, or the job would be taken again.
		const replica = await openRedisBackend({url: sentinel.url, queueName: 'events', waitReplicas: 1, waitTimeoutMs: 500, checkDurability: true, stalledIntervalMs: 1000});
		const acked = new Set<string>();
		let refused = 0;
		try {
			expect(replica.durability).toMatchObject({state: 'persistent'});
			await replica.start(recordingHandler(seen), {concurrency: 4});
			const firstPort = await sentinel.primaryPort();
			let next = 0;
			let killed = false;
			// Deliveries keep coming, each retried until acknowledged (as the platform retries a 503).
			const deliver = async (): Promise<void> => {
				const id = `evt_sentinel_${String(next++)}`;
				for (let attempt = 0; attempt < 600; attempt++) {
					try {
						await replica.accept(newEvent(id));
						acked.add(id);
						return;
					} catch {
						refused++;
						await new Promise(resolve => {
							setTimeout(resolve, 50);
						});
					}
				}

				throw new Error(`${id} was never acknowledged`);
			};

			while (acked.size < 150) {
				await Promise.all([deliver(), deliver(), deliver()]);
				if (!killed && acked.size >= 60) {
					killed = true;
					sentinel.primary.process?.kill('SIGKILL');
				}
			}

			expect(await sentinel.primaryPort()).not.toBe(firstPort);
			await waitFor(() => [...acked].every(id => seen.some(item => item.id === id)) && replica.active() === 0, {what: `every acknowledged event answered (${String(seen.length)} of ${String(acked.size)})`});
			const answered = seen.map(item => item.id);
			expect(answered.filter((id, index) => answered.indexOf(id) !== index)).toEqual([]);
			expect([...acked].filter(id => !answered.includes(id))).toEqual([]);
			console.log(`sentinel failover: ${String(acked.size)} events acknowledged, ${String(refused)} deliveries refused (503) while no primary was known, none lost or answered twice`);
		} finally {
			await replica.close();
			await sentinel.stop();
		}
	});
});
