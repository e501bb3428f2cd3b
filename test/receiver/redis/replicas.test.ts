/**
 * MUST-SHOW (issue 12): three replicas on one Redis and the local platform; a few hundred
 * chosen-module events plus redeliveries spread over them; one replica killed with SIGKILL
 * mid-run. Every event is answered, none twice beyond the jobs the killed replica had in flight,
 * no log is left RUNNING, and a fourth process lists them all.
 */
import {existsSync} from 'node:fs';
import {fileURLToPath} from 'node:url';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {unknownLogRequests} from '../../../source/receiver/answer/answer-steps.js';
import type {EventBackend} from '../../../source/receiver/store/backend.js';
import {testTimers} from '../../../source/config/test-timers.js';
import {openRedisBackend} from '../../../source/receiver/redis/index.js';
import {cliPath, runCli, startCli, testTimersEnv, type CliProcess} from '../../support/cli.js';
import {startPlatform, type TestPlatform} from '../../support/platform.js';
import {redisSkipReason, startRedis, type TestRedis} from '../../support/redis.js';
import {waitFor} from '../../support/wait.js';
import {chosenEvent, sendSigned, startModel} from '../helpers.js';
import {defined} from '../../support/defined.js';
import {messageWrites} from './events.js';

const eventCount = 240;
const chats = 24;
const redeliveries = 80;
const concurrency = 8;
/** `events list` of the built CLI, when that command is built. */
const eventsListPath = fileURLToPath(new URL('commands/events/list.js', new URL(`file://${cliPath}`)));

/** `items[index]`, which the test knows is there. */
function at<T>(items: readonly T[], index: number): T {
	const item = items[index];
	if (item === undefined) {
		throw new Error(`no item ${String(index)}`);
	}

	return item;
}

type Replica = {child: CliProcess['child']; url: string; exited: Promise<unknown>};

/** A built-CLI `serve --redis` (the replica keeps no job state of its own). */
async function startReplica(redisUrl: string, env: Record<string, string | undefined>): Promise<Replica> {
	const run = startCli(['serve', '--redis', redisUrl, '--port', '0', '--concurrency', String(concurrency)], {env});
	const line = await waitFor(() => /Listening on (\S+)/.exec(run.stderr()), {what: `a replica to listen (stderr: ${run.stderr()})`});
	return {child: run.child, url: `${line[1] ?? ''}/webhook`, exited: run.closed};
}

describe.skipIf(redisSkipReason !== undefined)('three serve replicas on one Redis', () => {
	let redis: TestRedis;
	let platform: TestPlatform;
	let model: Awaited<ReturnType<typeof startModel>>;
	let reader: EventBackend | undefined;
	const replicas: Replica[] = [];

	beforeAll(async () => {
		redis = await startRedis({forceLocal: true, appendonly: true});
		model = await startModel({delayMs: 0});
		platform = await startPlatform({llmUrl: model.url, limits: {maxRequestLog: 50_000}});
	});

	afterAll(async () => {
		for (const replica of replicas) {
			replica.child.kill('SIGKILL');
		}

		await reader?.close();
		await platform.close();
		await model.close();
		await redis.stop();
	});

	it('answers every event once across replicas and takes over the jobs of a killed one', async () => {
		const user = platform.client();
		const {platform: local} = platform;
		// Assistant messages to answer: the built-in assistant writes them, the replicas overwrite them.
		const targets = (await Promise.all(Array.from({length: chats}, async (_, chatIndex) => {
			const chat = await user.createChat({title: `Chat ${String(chatIndex)}`, assistantId: local.assistantId});
			for (let index = 0; index < eventCount / chats; index++) {
				await user.createSpaceMessage({assistantId: local.assistantId, chatId: chat.id, text: `Question ${String(index)}`});
			}

			const history = await user.getChatMessages(chat.id);
			return history.messages.filter(message => message.role === 'ASSISTANT').map(message => ({chatId: chat.id, messageId: defined(message.id, 'the assistant message id')}));
		}))).flat();
		expect(targets).toHaveLength(eventCount);
		await waitFor(() => targets.every(target => local.message(target.messageId)?.stoppedStreamingAt), {what: 'the built-in answers'});
		const writesBefore = local.requests.length;
		model.setDelay(400);

		const env = platform.env();
		replicas.push(...await Promise.all([startReplica(redis.url, env), startReplica(redis.url, env), startReplica(redis.url, env)]));

		const events = targets.map((target, index) => chosenEvent({id: `evt_scale_${String(index).padStart(4, '0')}`, chatId: target.chatId, assistantMessageId: target.messageId, text: `Question ${String(index)}`, userId: local.userId, companyId: local.companyId}));
		const statuses = await Promise.all(events.map(async (event, index) => (await sendSigned(at(replicas, index % 3).url, event, local.endpointSecret)).status));
		expect(statuses.every(status => status === 200)).toBe(true);

		// Mid-run: replica 1 dies with jobs in flight.
		await waitFor(() => model.active >= concurrency, {what: 'answers in flight'});
		const killedAt = Date.now();
		at(replicas, 1).child.kill('SIGKILL');
		await at(replicas, 1).exited;

		// The platform redelivers to whichever replica is up: acknowledged, not processed again.
		const survivors = [at(replicas, 0), at(replicas, 2)];
		const again = await Promise.all(events.slice(0, redeliveries).map(async (event, index) => sendSigned(at(survivors, index % 2).url, event, local.endpointSecret)));
		expect(again.every(delivery => delivery.status === 200)).toBe(true);

		const fourth = await openRedisBackend({url: redis.url});
		reader = fourth;
		const finished = await waitFor(async () => {
			const listed = await fourth.list({});
			return listed.length === eventCount && listed.every(event => event.status === 'answered' || event.status === 'failed') ? listed : undefined;
		}, {intervalMs: 200, what: 'every event to finish'});
		const takeoverMs = Date.now() - killedAt;
		// The replicas run with the test timers (a lock of seconds, not the product's 15 s).
		const timers = defined(testTimers(testTimersEnv), 'the test timers');
		console.log(`redis replicas: ${String(eventCount)} events answered; the killed replica's jobs were taken over and all finished ${String(Math.round(takeoverMs / 100) / 10)} s after the kill (test timers: lock ${String(timers.lockDurationMs / 1000)} s, stalled check every ${String(timers.stalledIntervalMs / 1000)} s)`);

		expect(finished.filter(event => event.status !== 'answered')).toEqual([]);
		const takenOver = finished.filter(event => event.attempts > 1);
		expect(takenOver.length).toBeGreaterThan(0);
		expect(takenOver.length).toBeLessThanOrEqual(concurrency);

		// One answer written per event; a second only for the killed replica's jobs in flight.
		const writes = messageWrites(local.requests.slice(writesBefore));

		const byMessage = new Map(events.map((event, index) => [at(targets, index).messageId, String(event.id)]));
		const attempts = new Map(finished.map(event => [event.id, event.attempts]));
		let orphaned = 0;
		for (const target of targets) {
			const count = writes.get(target.messageId) ?? 0;
			const eventAttempts = attempts.get(byMessage.get(target.messageId) ?? '') ?? 0;
			expect(count, `answer writes of ${target.messageId}`).toBeGreaterThanOrEqual(1);
			expect(count, `answer writes of ${target.messageId}`).toBeLessThanOrEqual(eventAttempts === 1 ? 1 : 2);
			// The one log a kill can orphan: created by the platform in the instant before its id was
			// recorded. Its `log-requested` step has no `log-created`; every other log is closed.
			const running = local.messageLogs(target.messageId).filter(log => log.status === 'RUNNING');
			const unknown = unknownLogRequests(finished.find(event => event.id === byMessage.get(target.messageId))?.steps);
			expect(running.length, `RUNNING logs of ${target.messageId}`).toBeLessThanOrEqual(unknown.length);
			expect(running.every(log => unknown.includes(log.order as 1 | 2))).toBe(true);
			orphaned += running.length;
		}

		// Orphans can only come from the killed replica's jobs in flight.
		expect(orphaned).toBeLessThanOrEqual(concurrency);
		console.log(`redis replicas: ${String(orphaned)} log(s) orphaned by the kill (created in the instant before its id was recorded)`);

		// A fourth process lists them all from Redis: this one through the backend, and the
		// `events list` command once it is built.
		expect((await fourth.list({status: 'answered'})).length).toBe(eventCount);
		expect((await fourth.stats()).queue).toMatchObject({waiting: 0, active: 0, completed: eventCount, failed: 0});
		if (existsSync(eventsListPath)) {
			const listed = await runCli(['events', 'list', '--redis', redis.url, '--json', '--limit', String(eventCount * 2)]);
			expect(listed.code, listed.stderr).toBe(0);
			const ids = new Set(listed.stdout.trim().split('\n').map(line => JSON.parse(line) as {type: string; id: unknown}).filter(line => line.type === 'event').map(line => String(line.id)));
			expect(ids.size).toBe(eventCount);
		} else {
			console.log('events list is not built yet: the listing was checked through the Redis backend only');
		}

		for (const replica of survivors) {
			replica.child.kill('SIGTERM');
		}

		await Promise.all(survivors.map(async replica => replica.exited));
		await user.close();
	});
});
