/**
 * Scale-out benchmark (issue 12), side by side in one run:
 *
 * 1. Answers per second with model completions of 2 s: one `serve --redis` replica (the built
 *    CLI, dist/cli.js) against three, each with 2 slots on one Redis (goal: three ≥ 2.5× one).
 * 2. Ack throughput of a Redis-backed receiver against the embedded journal: signed deliveries,
 *    32 at a time. A journal that does not open fails the bench (no stand-in backend).
 *
 * Needs redis-server on PATH (or PLATFORM_TUI_TEST_REDIS_URL) and a build (`npx tsc -p tsconfig.json`).
 * Run: node --import tsx test/bench/scale.ts
 */
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {performance} from 'node:perf_hooks';
import {pathToFileURL} from 'node:url';
import {request} from 'undici';
import {PlatformClient} from '../../source/platform/client.js';
import type {EventBackend} from '../../source/receiver/store/backend.js';
import {buildTestEvent, signDelivery} from '../../source/receiver/intake/test-event.js';
import {createReceiver} from '../../source/receiver/server.js';
import {openJournal} from '../../source/receiver/journal/index.js';
import {openRedisBackend} from '../../source/receiver/redis/index.js';
import {startModel} from '../receiver/helpers.js';
import {startCli, type CliProcess} from '../support/cli.js';
import {startPlatform, type TestPlatform} from '../support/platform.js';
import {startRedis, type TestRedis} from '../support/redis.js';
import {waitFor} from '../support/wait.js';
import {defined} from '../support/defined.js';

const completionMs = 2000;
/**
 * Slots per replica. The local platform proxies at most 8 completions at once to its model
 * (its HTTP agent's connection limit), so three replicas × 2 slots stay under that cap and the
 * figure measures the replicas, not the platform.
 */
const slots = 2;
/** Completions each slot runs in a measured round: six rounds of 2 s, about 12 s per round. */
const perSlot = 6;
const ackCount = 3000;
const ackConcurrency = 32;
type Replica = {child: CliProcess['child']; url: string; exited: Promise<unknown>};

/** A built-CLI `serve --redis` replica with `slots` slots. */
async function startReplica(redisUrl: string, env: Record<string, string | undefined>): Promise<Replica> {
	const run = startCli(['serve', '--redis', redisUrl, '--port', '0', '--concurrency', String(slots)], {env});
	const line = await waitFor(() => /Listening on (\S+)/.exec(run.stderr()), {timeoutMs: 20_000, what: `a replica to listen (stderr: ${run.stderr()})`});
	return {child: run.child, url: `${line[1] ?? ''}/webhook`, exited: run.closed};
}

async function post(url: string, delivery: {body: string; headers: Record<string, string>}): Promise<number> {
	const response = await request(url, {method: 'POST', body: delivery.body, headers: delivery.headers});
	await response.body.dump();
	return response.statusCode;
}

/** Assistant messages the replicas can answer (the built-in assistant writes them first). */
async function targets(platform: TestPlatform, count: number): Promise<Array<{chatId: string; messageId: string}>> {
	const user = platform.client();
	const {platform: local} = platform;
	const chats = 16;
	const found = (await Promise.all(Array.from({length: chats}, async (_, chatIndex) => {
		const chat = await user.createChat({title: `Bench ${String(chatIndex)}`, assistantId: local.assistantId});
		for (let index = 0; index < Math.ceil(count / chats); index++) {
			await user.createSpaceMessage({assistantId: local.assistantId, chatId: chat.id, text: `Question ${String(index)}`});
		}

		const history = await user.getChatMessages(chat.id);
		return history.messages.filter(message => message.role === 'ASSISTANT').map(message => ({chatId: chat.id, messageId: defined(message.id, 'the assistant message id')}));
	}))).flat();
	await waitFor(() => found.every(target => local.message(target.messageId)?.stoppedStreamingAt), {timeoutMs: 30_000, what: 'the built-in answers'});
	await user.close();
	return found.slice(0, count);
}

/** One round: `replicaCount` replicas on a fresh queue, `slots × perSlot` events each; answers per second. */
async function answersPerSecond(redis: TestRedis, platform: TestPlatform, dataDir: string, replicaCount: number, work: Array<{chatId: string; messageId: string}>): Promise<number> {
	const {platform: local} = platform;
	const queueUrl = redis.url;
	// Settings come from the environment; the config and data dirs are the bench's own.
	const env = platform.env({PLATFORM_TUI_CONFIG_DIR: join(dataDir, 'config'), PLATFORM_TUI_DATA_DIR: join(dataDir, 'data')});
	const replicas = await Promise.all(Array.from({length: replicaCount}, async () => startReplica(queueUrl, env)));
	const reader = await openRedisBackend({url: queueUrl});
	try {
		const before = (await reader.stats()).queue?.completed ?? 0;
		const started = performance.now();
		const statuses = await Promise.all(work.map(async (target, index) => {
			const event = buildTestEvent('external-module-chosen', {chatId: target.chatId, assistantMessageId: target.messageId, userId: local.userId, companyId: local.companyId, text: `Question ${String(index)}`});
			return post(replicas[index % replicaCount]?.url ?? '', signDelivery(event, local.endpointSecret));
		}));
		if (statuses.some(status => status !== 200)) {
			throw new Error(`deliveries refused: ${statuses.filter(status => status !== 200).join(', ')}`);
		}

		await waitFor(async () => ((await reader.stats()).queue?.completed ?? 0) - before >= work.length, {timeoutMs: 120_000, intervalMs: 50, what: 'every answer'});
		const failed = (await reader.list({status: 'failed'})).length;
		if (failed > 0) {
			throw new Error(`${String(failed)} answers failed`);
		}

		return work.length / ((performance.now() - started) / 1000);
	} finally {
		for (const replica of replicas) {
			replica.child.kill('SIGTERM');
		}

		await Promise.all(replicas.map(async replica => replica.exited));
		await reader.close();
	}
}

type AckFigures = {perSecond: number; p99Ms: number};

/** Acks per second and p99 ack latency of an in-process receiver on `backend` (user-message events: stored, not answered). */
async function ackThroughput(platform: TestPlatform, backend: EventBackend): Promise<AckFigures> {
	const {platform: local} = platform;
	const client = new PlatformClient({baseUrl: local.baseUrl, apiKey: local.apiKey, appId: local.appId});
	const receiver = createReceiver({client, secrets: [local.endpointSecret], backend, concurrency: slots});
	const {url} = await receiver.listen({port: 0});
	const deliveries = Array.from({length: ackCount}, () => signDelivery(buildTestEvent('user-message', {userId: local.userId, companyId: local.companyId}), local.endpointSecret));
	const latencies: number[] = [];
	let next = 0;
	const started = performance.now();
	await Promise.all(Array.from({length: ackConcurrency}, async () => {
		while (next < deliveries.length) {
			const delivery = deliveries[next++];
			if (delivery === undefined) {
				break;
			}

			const sent = performance.now();
			const status = await post(`${url}/webhook`, delivery);
			latencies.push(performance.now() - sent);
			if (status !== 200) {
				throw new Error(`ack ${String(status)}`);
			}
		}
	}));
	const seconds = (performance.now() - started) / 1000;
	await receiver.close(5000);
	await client.close();
	latencies.sort((a, b) => a - b);
	return {perSecond: ackCount / seconds, p99Ms: latencies[Math.floor(latencies.length * 0.99)] ?? Number.NaN};
}

export async function runScaleBench(): Promise<boolean> {
	const redis = await startRedis({forceLocal: true, appendonly: true});
	const model = await startModel({delayMs: 0});
	const platform = await startPlatform({llmUrl: model.url, limits: {maxRequestLog: 50_000}});
	const dataDir = mkdtempSync(join(tmpdir(), 'platform-tui-bench-scale-'));
	try {
		const perRound = slots * perSlot;
		const work = await targets(platform, perRound * 4);
		model.setDelay(completionMs);
		const one = await answersPerSecond(redis, platform, dataDir, 1, work.slice(0, perRound));
		const three = await answersPerSecond(redis, platform, dataDir, 3, work.slice(perRound, perRound * 4));
		const ratio = three / one;
		console.log(`answers per second, completions of ${String(completionMs / 1000)} s, ${String(slots)} slots per replica:`);
		console.log(`  one replica:    ${one.toFixed(2)}/s (${String(perRound)} events)`);
		console.log(`  three replicas: ${three.toFixed(2)}/s (${String(perRound * 3)} events)`);
		console.log(`  RESULT three/one: ${ratio.toFixed(2)}× (goal ≥ 2.5×) ${ratio >= 2.5 ? 'MET' : 'NOT MET'}`);

		model.setDelay(0);
		// An error opening the journal ends the bench: the figure is only worth the journal's.
		const local = {name: 'embedded journal', backend: await openJournal({directory: dataDir, mode: 'serve'})};
		const viaLocal = await ackThroughput(platform, local.backend);
		const viaRedis = await ackThroughput(platform, await openRedisBackend({url: redis.url, queueName: 'bench-acks'}));
		console.log(`ack throughput, ${String(ackCount)} signed deliveries, ${String(ackConcurrency)} at a time:`);
		console.log(`  ${local.name}: ${viaLocal.perSecond.toFixed(0)}/s, p99 ${viaLocal.p99Ms.toFixed(1)} ms`);
		console.log(`  redis (BullMQ):  ${viaRedis.perSecond.toFixed(0)}/s, p99 ${viaRedis.p99Ms.toFixed(1)} ms`);
		console.log(`  redis/${local.name}: ${(viaRedis.perSecond / viaLocal.perSecond).toFixed(2)}×`);
		return ratio >= 2.5;
	} finally {
		await platform.close();
		await model.close();
		await redis.stop();
		rmSync(dataDir, {recursive: true, force: true});
	}
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
	const met = await runScaleBench();
	process.exitCode = met ? 0 : 1;
}
