/**
 * --max-backlog bounds the cluster on Redis: replicas admit through one script that counts the
 * queue's unfinished jobs and stores the job in the same step, so deliveries arriving at every
 * replica at once never pass the bound (the script itself: admission.test.ts).
 */
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {PlatformClient} from '../../../source/platform/client.js';
import {openRedisBackend} from '../../../source/receiver/redis/index.js';
import {createReceiver, type WebhookReceiver} from '../../../source/receiver/server.js';
import {chosenEvent, platformAnswer, sendSigned} from '../helpers.js';
import {redisSkipReason, startRedis, type TestRedis} from '../../support/redis.js';
import {sendJson, startRecordingServer, type RecordingServer} from '../../support/recording-server.js';
import {waitFor} from '../../support/wait.js';
import {closersAfterEach} from '../../support/cleanups.js';

const secret = 'whsec_cluster_backlog';
const limit = 20;
const cleanups = closersAfterEach();

/** Answers each platform call with a body its operation accepts, once the gate is open. */
function gatedPlatform(): {open(): void; close(): void; start(): Promise<RecordingServer>} {
	let gate = Promise.resolve();
	let release: () => void = () => undefined;
	return {
		open() {
			release();
		},
		close() {
			gate = new Promise(resolve => {
				release = resolve;
			});
		},
		async start() {
			return startRecordingServer({handler: async (request, response) => {
				await gate;
				sendJson(response, 200, platformAnswer(request));
			}});
		},
	};
}

async function startReplicas(count: number, redisUrl: string, queueName: string, platformUrl: string): Promise<Array<{receiver: WebhookReceiver; url: string}>> {
	return Promise.all(Array.from({length: count}, async () => {
		const client = new PlatformClient({baseUrl: platformUrl, apiKey: 'sk_test_key', appId: 'app_test', retries: 0});
		const backend = await openRedisBackend({url: redisUrl, queueName});
		const receiver = createReceiver({client, secrets: [secret], backend, concurrency: 4, maxBacklog: limit});
		const {url} = await receiver.listen({port: 0});
		cleanups.push(async () => {
			await receiver.close(2000);
			await client.close();
		});
		return {receiver, url: `${url}/webhook`};
	}));
}

/** Delivers every event at once, spread over the replicas in turn; the statuses in event order. */
async function deliverAll(replicas: ReadonlyArray<{url: string}>, events: ReadonlyArray<Record<string, unknown>>): Promise<number[]> {
	const answers = await Promise.all(events.map(async (event, index) => sendSigned(replicas[index % replicas.length]?.url ?? '', event, secret)));
	return answers.map(answer => answer.status);
}

const event = (n: number) => chosenEvent({chatId: `chat_${n}`, text: 'Question?', assistantMessageId: `msg_${n}`, userId: 'user_a', companyId: 'company_a'});

describe.skipIf(redisSkipReason !== undefined)('--max-backlog across Redis replicas', () => {
	let redis: TestRedis;

	beforeAll(async () => {
		redis = await startRedis();
	});

	afterAll(async () => {
		await redis.stop();
	});

	it.each([2, 3])('MUST-SHOW: %i replicas, 60 deliveries at once: exactly 20 acknowledged, and 20 more once they finish', async replicaCount => {
		const platform = gatedPlatform();
		platform.close();
		const server = await platform.start();
		cleanups.push(async () => {
			platform.open();
			await server.close();
		});
		const replicas = await startReplicas(replicaCount, redis.url, redis.queueName(), server.url);
		const events = Array.from({length: 60}, (_, index) => event(index));

		const first = await deliverAll(replicas, events);
		expect(first.filter(status => status === 200)).toHaveLength(limit);
		expect(first.filter(status => status === 503)).toHaveLength(60 - limit);
		const admitted = new Set(events.filter((_, index) => first[index] === 200).map(item => String(item.id)));

		// The platform answers: every admitted event finishes, and the slots come back.
		platform.open();
		const reader = replicas[0]?.receiver;
		await waitFor(async () => Promise.all([...admitted].map(async id => (await reader?.event(id))?.status)), {until: statuses => statuses.every(status => status === 'answered'), what: 'the admitted events to be answered'});
		platform.close();

		// The platform redelivers all 60: the 20 answered are duplicates, and of the 40 refused exactly 20 fit.
		const second = await deliverAll(replicas, events);
		const stored = events.filter((item, index) => second[index] === 200 && !admitted.has(String(item.id)));
		expect(stored).toHaveLength(limit);
		expect(second.filter(status => status === 503)).toHaveLength(60 - 2 * limit);
		platform.open();
	});
});
