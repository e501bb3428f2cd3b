/**
 * MUST-SHOW (issue 32): a 3-master Redis Cluster (slots assigned by the test) and two built-CLI
 * `serve --redis redis+cluster://…` replicas. Signed chosen-module events are spread over both;
 * some are redelivered to the other replica while their job runs, some after they were answered,
 * and some are delivered to both at once. The local platform's own records show one final answer
 * per acknowledged event and nothing answered twice; each replica's NDJSON log agrees.
 */
import {Redis} from 'ioredis';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {openRedisBackend} from '../../../source/receiver/redis/index.js';
import {startCli, type CliProcess} from '../../support/cli.js';
import {defined} from '../../support/defined.js';
import {startPlatform, type TestPlatform} from '../../support/platform.js';
import {hasRedisServer, redisSkipReason} from '../../support/redis.js';
import {waitFor} from '../../support/wait.js';
import {chosenEvent, sendSigned, startModel} from '../helpers.js';
import {startCluster, type TestCluster} from './topology.js';
import {messageWrites} from './events.js';

const chats = 3;
const perChat = 20;
const eventCount = chats * perChat;
const answer = 'The answer from the model, written once.';

type Replica = {run: CliProcess; url: string};
type LogRecord = {type?: string; eventId?: string; stage?: string};

/** The complete NDJSON records a replica has written so far. */
function records(replica: Replica): LogRecord[] {
	const lines = replica.run.stdout().split('\n').slice(0, -1);
	return lines.filter(line => line.startsWith('{')).map(line => JSON.parse(line) as LogRecord);
}

/** A built-CLI `serve --redis` on port 0; its webhook URL is read from its `listening` record. */
async function startReplica(redisUrl: string, env: Record<string, string | undefined>): Promise<Replica> {
	const run = startCli(['serve', '--redis', redisUrl, '--port', '0', '--concurrency', '4', '--json'], {env});
	const listening = await waitFor(() => run.stdout().split('\n').find(line => line.includes('"listening"')), {what: `a replica to listen (stderr: ${run.stderr()})`});
	return {run, url: (JSON.parse(listening) as {webhookUrl: string}).webhookUrl};
}

/** How many keys under `pattern` each node of the cluster holds. */
async function keysPerNode(cluster: TestCluster, pattern: string): Promise<number[]> {
	return Promise.all(cluster.nodes.map(async node => {
		const raw = new Redis({host: '127.0.0.1', port: defined(node.port, 'a cluster node port')});
		try {
			return (await raw.keys(pattern)).length;
		} finally {
			raw.disconnect();
		}
	}));
}

describe.skipIf(redisSkipReason !== undefined || !hasRedisServer)('two built serve replicas on a 3-master Redis Cluster', () => {
	let cluster: TestCluster;
	let platform: TestPlatform;
	let model: Awaited<ReturnType<typeof startModel>>;
	const replicas: Replica[] = [];

	beforeAll(async () => {
		cluster = await startCluster(3);
		model = await startModel({delayMs: 0, content: answer});
		platform = await startPlatform({llmUrl: model.url, limits: {maxRequestLog: 50_000}});
	});

	afterAll(async () => {
		for (const replica of replicas) {
			replica.run.child.kill('SIGTERM');
		}

		await Promise.all(replicas.map(async replica => replica.run.closed));
		await platform.close();
		await model.close();
		await cluster.stop();
	});

	it('answers every acknowledged event exactly once across both replicas, redeliveries included', async () => {
		const {platform: local} = platform;
		const user = platform.client();
		// Assistant messages to answer: the built-in assistant writes them, the replicas overwrite them.
		const targets = (await Promise.all(Array.from({length: chats}, async (_, chatIndex) => {
			const chat = await user.createChat({title: `Cluster ${String(chatIndex)}`, assistantId: local.assistantId});
			for (let index = 0; index < perChat; index++) {
				await user.createSpaceMessage({assistantId: local.assistantId, chatId: chat.id, text: `Question ${String(index)}`});
			}

			const history = await user.getChatMessages(chat.id);
			return history.messages.filter(message => message.role === 'ASSISTANT').map(message => ({chatId: chat.id, messageId: defined(message.id, 'an assistant message id')}));
		}))).flat();
		await user.close();
		expect(targets).toHaveLength(eventCount);
		await waitFor(() => targets.every(target => local.message(target.messageId)?.stoppedStreamingAt), {what: 'the built-in answers'});

		const env = platform.env();
		replicas.push(...await Promise.all([startReplica(cluster.url, env), startReplica(cluster.url, env)]));
		const [first, second] = [defined(replicas[0], 'replica 0'), defined(replicas[1], 'replica 1')];
		const writesBefore = local.requests.length;
		// Jobs take a while, so redeliveries sent right after the first round find them queued or running.
		model.setDelay(150);

		const events = targets.map((target, index) => chosenEvent({id: `evt_cluster_serve_${String(index).padStart(3, '0')}`, chatId: target.chatId, assistantMessageId: target.messageId, text: `Question ${String(index)}`, userId: local.userId, companyId: local.companyId}));
		const ids = events.map(event => String(event.id));
		const home = (index: number): Replica => index % 2 === 0 ? first : second;
		const other = (index: number): Replica => index % 2 === 0 ? second : first;
		const send = async (replica: Replica, index: number) => (await sendSigned(replica.url, defined(events[index], 'an event'), local.endpointSecret)).status;
		const indexes = events.map((_, index) => index);
		const racing = indexes.filter(index => index % 10 === 9);
		const whileRunning = indexes.filter(index => index % 3 === 0);
		const afterAnswered = indexes.filter(index => index % 5 === 1);

		// Every event to one replica, alternating; every tenth to both at the same moment.
		const firstRound = await Promise.all(indexes.flatMap(index => racing.includes(index) ? [send(home(index), index), send(other(index), index)] : [send(home(index), index)]));
		expect(firstRound.filter(status => status !== 200)).toEqual([]);
		// A third redelivered to the other replica while the jobs are queued or running.
		const secondRound = await Promise.all(whileRunning.map(async index => send(other(index), index)));
		expect(secondRound.filter(status => status !== 200)).toEqual([]);

		const reader = await openRedisBackend({url: cluster.url});
		try {
			const finished = await waitFor(async () => {
				const listed = await reader.list({});
				return listed.length >= eventCount && listed.every(event => event.status === 'answered' || event.status === 'failed') ? listed : undefined;
			}, {intervalMs: 100, what: 'every event to finish'});
			// One record per event: no redelivery became an event of its own.
			expect(finished.map(event => event.id).sort()).toEqual([...ids].sort());
			expect(finished.filter(event => event.status !== 'answered').map(event => event.id)).toEqual([]);
			expect(finished.filter(event => event.attempts !== 1).map(event => event.id)).toEqual([]);

			// A fifth redelivered to the other replica after it was answered: acknowledged, not run again.
			const thirdRound = await Promise.all(afterAnswered.map(async index => send(other(index), index)));
			expect(thirdRound.filter(status => status !== 200)).toEqual([]);
			const late = afterAnswered.map(index => ({replica: other(index), id: defined(ids[index], 'an event id')}));
			await waitFor(() => late.every(({replica, id}) => records(replica).some(record => record.type === 'duplicate' && record.eventId === id)), {what: 'the late redeliveries logged as duplicates'});
			expect((await reader.stats()).queue).toMatchObject({waiting: 0, active: 0, completed: eventCount, failed: 0});
		} finally {
			await reader.close();
		}

		// The platform's own records: one final write per message, the model's answer, no log left open.
		const writes = messageWrites(local.requests.slice(writesBefore));

		expect(targets.filter(target => writes.get(target.messageId) !== 1).map(target => `${target.messageId}: ${String(writes.get(target.messageId) ?? 0)}`)).toEqual([]);
		expect([...writes.keys()].filter(id => !targets.some(target => target.messageId === id))).toEqual([]);
		expect(targets.filter(target => local.message(target.messageId)?.text !== answer).map(target => target.messageId)).toEqual([]);
		expect(targets.filter(target => local.messageLogs(target.messageId).some(log => log.status === 'RUNNING')).map(target => target.messageId)).toEqual([]);

		// Each replica's log agrees: every event answered on exactly one replica, and both did work.
		const answeredOn = replicas.map(replica => records(replica).filter(record => record.type === 'stage' && record.stage === 'answered').map(record => String(record.eventId)));
		const answered = answeredOn.flat();
		expect(answered.filter((id, index) => answered.indexOf(id) !== index)).toEqual([]);
		expect([...answered].sort()).toEqual([...ids].sort());
		expect(answeredOn.map(list => list.length).every(count => count > 0)).toBe(true);
		const duplicates = replicas.map(replica => records(replica).filter(record => record.type === 'duplicate').length);
		expect(duplicates.reduce((sum, count) => sum + count, 0)).toBeGreaterThanOrEqual(whileRunning.length + afterAnswered.length);

		// The CLI's hash-tagged prefix keeps every key of the queue on one node (one slot).
		const holders = await keysPerNode(cluster, '{platform-tui}:events:*');
		expect(holders.filter(count => count > 0)).toHaveLength(1);
		console.log(`redis cluster serve: ${String(eventCount)} events answered once each over 2 replicas (${answeredOn.map(list => String(list.length)).join(' + ')}); ${String(whileRunning.length + afterAnswered.length + racing.length)} redeliveries, ${duplicates.join(' + ')} logged as duplicates`);
	});
});
